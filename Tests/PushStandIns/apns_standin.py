"""APNs for the tests: HTTP/2 over TLS with ALPN h2, built on the PyPI `h2` library (the reference
HTTP/2 state machine, not ours). Each request is checked as APNs does ("Sending notification
requests to APNs"): the provider token (an ES256 JWT whose signature verifies with the key this
stand-in made, `kid` the key id, `iss` the team, `iat` within the hour), `:method` POST, `:path`
/3/device/<hex token>, every apns-* header, a JSON payload of at most 4096 bytes with a
mutable-content alert. Answers 200, or what the test scripted for the device token: 410
Unregistered, 400 BadDeviceToken, 429 with Retry-After, 500, 403 ExpiredProviderToken, or none.

Commands: {"cmd": "key"} -> the .p8 file, key_id, team_id, topic; {"cmd": "script", "id": <token>,
"answers": [...]}; {"cmd": "goaway"} (every connection gets GOAWAY); {"cmd": "drop"} (every
connection is closed without a word). Events: {"event": "connection", "n"}; {"event": "push", "id",
"status", "payload", "headers", "errors", "connection", "iat", "size"}.
"""
import argparse
import asyncio
import json
import os
import re
import secrets
import ssl
import string
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.settings
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from standin import Scripts, certificate, command_loop, emit, jwt_parts

PATH = re.compile(r"^/3/device/([0-9a-f]{16,400})$")
state = {"key": None, "key_id": None, "team_id": None, "topic": None, "verified": {}}
scripts = Scripts({"status": 200})
connections = []
counter = {"n": 0}
loop_holder = {}
REASONS = {400: "BadDeviceToken", 403: "ExpiredProviderToken", 410: "Unregistered", 429: "TooManyRequests",
           500: "InternalServerError", 503: "ServiceUnavailable"}


def check_token(authorization, errors):
    """The provider token's checks; returns its iat."""
    if not authorization.startswith("bearer "):
        errors.append("authorization is not a bearer token")
        return None
    token = authorization[len("bearer "):]
    cached = state["verified"].get(token)
    if cached is not None:
        return cached
    try:
        header, claims, signed, signature = jwt_parts(token)
        if header != {"alg": "ES256", "kid": state["key_id"]}:
            errors.append("JWT header %r" % header)
        if claims.get("iss") != state["team_id"] or set(claims) != {"iss", "iat"}:
            errors.append("JWT claims %r" % claims)
        iat = claims.get("iat")
        if not isinstance(iat, int) or not (time.time() - 3600 <= iat <= time.time() + 60):
            errors.append("iat %r not within the hour" % iat)
        if len(signature) != 64:
            errors.append("signature is not r||s")
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        state["key"].public_key().verify(der, signed, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        errors.append("JWT signature does not verify")
        return None
    except Exception as error:
        errors.append("JWT unreadable: %r" % error)
        return None
    if not errors:
        state["verified"][token] = iat
    return iat


def check(headers, body):
    errors = []
    token = None
    if headers.get(":method") != "POST":
        errors.append(":method")
    if headers.get(":scheme") != "https":
        errors.append(":scheme")
    if not headers.get(":authority"):
        errors.append(":authority")
    match = PATH.match(headers.get(":path", ""))
    if match is None:
        errors.append(":path %r" % headers.get(":path"))
    else:
        token = match.group(1)
    iat = check_token(headers.get("authorization", ""), errors)
    if headers.get("apns-topic") != state["topic"]:
        errors.append("apns-topic")
    if headers.get("apns-push-type") != "alert":
        errors.append("apns-push-type")
    if headers.get("apns-priority") not in ("10", "5"):
        errors.append("apns-priority")
    expiration = headers.get("apns-expiration", "")
    if not expiration.isdigit() or int(expiration) < time.time():
        errors.append("apns-expiration")
    collapse = headers.get("apns-collapse-id")
    if collapse is None or len(collapse.encode()) > 64:
        errors.append("apns-collapse-id")
    if "apns-id" in headers:
        try:
            uuid.UUID(headers["apns-id"])
        except ValueError:
            errors.append("apns-id")
    unknown = [name for name in headers if name.startswith("apns-") and name not in
               ("apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id")]
    if unknown:
        errors.append("unknown headers %r" % unknown)
    payload = None
    if len(body) > 4096:
        errors.append("payload over 4096 bytes")
    try:
        payload = json.loads(body)
        aps = payload["aps"]
        if aps.get("mutable-content") != 1 or "alert" not in aps:
            errors.append("aps is not a mutable-content alert")
    except Exception as error:
        errors.append("payload: %r" % error)
    return token, iat, payload, errors


class Connection(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        if transport.get_extra_info("ssl_object").selected_alpn_protocol() != "h2":
            emit("refused", reason="no h2 by ALPN")
            transport.close()
            return
        counter["n"] += 1
        self.number = counter["n"]
        connections.append(self)
        emit("connection", n=self.number)
        self.h2 = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.h2.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        self.streams = {}
        self.flush()

    def connection_lost(self, exc):
        if self in connections:
            connections.remove(self)

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.h2.receive_data(data)
        except Exception as error:
            emit("protocol_error", message=repr(error))
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, h2.events.DataReceived):
                self.streams[event.stream_id][1].extend(event.data)
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.answer(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
                emit("reset", stream=event.stream_id, connection=self.number)
            elif isinstance(event, h2.events.PingReceived):
                emit("ping", connection=self.number)
        self.flush()

    def answer(self, stream_id):
        headers, body = self.streams.pop(stream_id)
        token, iat, payload, errors = check(headers, bytes(body))
        answer = scripts.next(token) if not errors else {"status": 400, "reason": "BadRequest"}
        status = answer["status"]
        emit("push", id=token, status=status, payload=payload, errors=errors, connection=self.number, iat=iat,
             size=len(body), headers={k: v for k, v in headers.items() if k != "authorization"})
        if status == "hang":
            return
        response = [(":status", str(status)), ("apns-id", headers.get("apns-id", str(uuid.uuid4())))]
        data = b""
        if status != 200:
            reason = answer.get("reason", REASONS.get(status, "BadRequest") if not errors else "BadRequest")
            body_object = {"reason": reason}
            if status == 410:
                body_object["timestamp"] = int(time.time() * 1000)
            data = json.dumps(body_object).encode()
            response.append(("content-type", "application/json"))
            if "retry_after" in answer:
                response.append(("retry-after", answer["retry_after"]))
        self.h2.send_headers(stream_id, response, end_stream=not data)
        if data:
            self.h2.send_data(stream_id, data, end_stream=True)


def on_loop(action):
    loop_holder["loop"].call_soon_threadsafe(action)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    cert_file, key_file = certificate(args.dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    context.set_alpn_protocols(["h2"])
    loop = asyncio.new_event_loop()
    loop_holder["loop"] = loop
    server = loop.run_until_complete(loop.create_server(Connection, "127.0.0.1", args.port, ssl=context))
    port = server.sockets[0].getsockname()[1]
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def handle(command):
        if command["cmd"] == "key":
            state["topic"] = "blue.catbird.test"
            if "file" in command:
                # Another stand-in's key (a test that restarts the stand-in).
                path = command["file"]
                with open(path, "rb") as f:
                    state["key"] = serialization.load_pem_private_key(f.read(), password=None)
                state["key_id"], state["team_id"] = command["key_id"], command["team_id"]
            else:
                state["key"] = ec.generate_private_key(ec.SECP256R1())
                alphabet = string.ascii_uppercase + string.digits
                state["key_id"] = "".join(secrets.choice(alphabet) for _ in range(10))
                state["team_id"] = "".join(secrets.choice(alphabet) for _ in range(10))
                path = os.path.join(args.dir, "AuthKey_%s.p8" % state["key_id"])
                with open(path, "wb") as f:
                    f.write(state["key"].private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
            return {"file": path, "key_id": state["key_id"], "team_id": state["team_id"], "topic": state["topic"]}
        if command["cmd"] == "goaway":
            def goaway():
                for connection in list(connections):
                    connection.h2.close_connection()
                    connection.flush()
            on_loop(goaway)
            return {}
        if command["cmd"] == "drop":
            def drop():
                for connection in list(connections):
                    connection.transport.abort()
            on_loop(drop)
            return {}
        raise ValueError("unknown command")

    emit("ready", port=port, ca=cert_file)
    command_loop(handle, scripts)


if __name__ == "__main__":
    main()
