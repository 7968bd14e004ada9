"""A Web Push service (RFC 8030) for the tests: subscriptions with their own P-256 keys and auth
secrets, and a push resource per subscription that decrypts every message with http_ece
(RFC 8291 aes128gcm) and checks its VAPID authorization with py_vapid (RFC 8292), the libraries
pywebpush builds on. It answers 201, or what the test scripted for the subscription.

Commands: {"cmd": "subscribe", "id": ...} -> endpoint, p256dh, auth (base64url);
{"cmd": "vapid", "key": <the service's public key, base64url>};
{"cmd": "script", "id": ..., "answers": [...]}. Events: {"event": "push", "id", "status", "payload",
"headers", "errors", "size"} per request.
"""
import argparse
import json
import os
import re
import time
from http.server import BaseHTTPRequestHandler

import http_ece
import py_vapid
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from standin import Scripts, b64url, command_loop, emit, jwt_parts, serve_https

subscriptions = {}
scripts = Scripts({"status": 201})
state = {"vapid_key": None, "origin": None}
URGENCIES = {"very-low", "low", "normal", "high"}
TOPIC = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def check(handler, body):
    """Every RFC 8030/8291/8292 requirement on one request; returns (errors, payload)."""
    errors = []
    headers = handler.headers
    if headers.get("Content-Encoding") != "aes128gcm":
        errors.append("Content-Encoding is not aes128gcm")
    ttl = headers.get("TTL")
    if ttl is None or not ttl.isdigit():
        errors.append("TTL missing or not a number")
    if headers.get("Urgency", "normal") not in URGENCIES:
        errors.append("bad Urgency")
    topic = headers.get("Topic")
    if topic is not None and not TOPIC.match(topic):
        errors.append("bad Topic")
    if len(body) > 4096:
        errors.append("body over 4096 bytes")
    authorization = headers.get("Authorization", "")
    try:
        if not py_vapid.Vapid02.verify(authorization):
            errors.append("VAPID signature does not verify")
        params = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(","))
        header, claims, _, _ = jwt_parts(params["t"])
        if header.get("alg") != "ES256":
            errors.append("VAPID alg is not ES256")
        if state["vapid_key"] is not None and params["k"] != state["vapid_key"]:
            errors.append("VAPID key is not the service's")
        if claims.get("aud") != state["origin"]:
            errors.append("VAPID aud %r is not the origin %r" % (claims.get("aud"), state["origin"]))
        exp = claims.get("exp", 0)
        if not (time.time() < exp <= time.time() + 86400):
            errors.append("VAPID exp not within 24 hours")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            errors.append("VAPID sub is not a mailto: or https: URI")
    except Exception as error:
        errors.append("VAPID authorization unreadable: %r" % error)
    payload = None
    subscription = subscriptions.get(handler.path.rsplit("/", 1)[-1])
    if subscription is None:
        errors.append("no such subscription")
    else:
        try:
            plaintext = http_ece.decrypt(body, private_key=subscription["key"], auth_secret=subscription["auth"],
                                         version="aes128gcm")
            payload = json.loads(plaintext)
        except Exception as error:
            errors.append("cannot decrypt: %r" % error)
    return errors, payload


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if 0 < length <= 1 << 20 else b""
        sub_id = self.path.rsplit("/", 1)[-1]
        errors, payload = check(self, body)
        answer = scripts.next(sub_id)
        status = answer["status"]
        emit("push", id=sub_id, status=status, payload=payload, errors=errors, size=len(body),
             headers={k: v for k, v in self.headers.items() if k.lower() != "authorization"})
        if status == "hang":
            time.sleep(3600)
            return
        if status == "redirect":
            self.send_response(301)
            self.send_header("Location", "https://127.0.0.1:%d/push/elsewhere" % self.server.server_address[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(status)
        if "retry_after" in answer:
            self.send_header("Retry-After", answer["retry_after"])
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    port, state["origin"], cert_file = serve_https(Handler, args.dir)

    def handle(command):
        if command["cmd"] == "subscribe":
            key = ec.generate_private_key(ec.SECP256R1())
            auth = os.urandom(16)
            subscriptions[command["id"]] = {"key": key, "auth": auth}
            public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            return {"endpoint": "%s/push/%s" % (state["origin"], command["id"]), "p256dh": b64url(public), "auth": b64url(auth)}
        if command["cmd"] == "vapid":
            state["vapid_key"] = command["key"]
            return {}
        raise ValueError("unknown command")

    emit("ready", port=port, ca=cert_file)
    command_loop(handle, scripts)


if __name__ == "__main__":
    main()
