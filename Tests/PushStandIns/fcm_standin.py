"""FCM HTTP v1 for the tests: an OAuth 2.0 token endpoint that takes the JWT bearer grant of a
service account it made (RS256, checked with `cryptography`), and a messages:send endpoint that
takes only the tokens it issued and checks the message as FCM does (a data message of string
values, at most 4096 bytes, Android options). Answers 200, or what the test scripted for the
registration token.

Commands: {"cmd": "account"} -> the service account key file; {"cmd": "token_lifetime", "seconds": n};
{"cmd": "revoke"} (every issued token is refused from now on, 401);
{"cmd": "script", "id": <registration token>, "answers": [...]}.
Events: {"event": "token", "errors"}; {"event": "push", "id", "status", "data", "android", "errors"}.
"""
import argparse
import json
import os
import re
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from standin import Scripts, command_loop, emit, jwt_parts, serve_https

PROJECT = "catbird-test"
EMAIL = "push@catbird-test.iam.gserviceaccount.com"
state = {"key": None, "key_id": None, "origin": None, "lifetime": 3600, "tokens": {}, "issued": 0}
scripts = Scripts({"status": 200})
lock = threading.Lock()
TTL = re.compile(r"^[0-9]+(\.[0-9]{1,9})?s$")


def error_body(status, code):
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
             500: "INTERNAL", 503: "UNAVAILABLE"}
    return {"error": {"code": status, "message": code, "status": names.get(status, "UNKNOWN"),
                      "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if 0 < length <= 1 << 20 else b""
        if self.path == "/token":
            return self.token(body)
        if self.path == "/v1/projects/%s/messages:send" % PROJECT:
            return self.send_message(body)
        emit("unknown", path=self.path)
        self.answer(404, {"error": {"code": 404, "status": "NOT_FOUND"}})

    def token(self, body):
        errors = []
        form = urllib.parse.parse_qs(body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            errors.append("grant_type is not the JWT bearer grant")
        if self.headers.get("Content-Type") != "application/x-www-form-urlencoded":
            errors.append("not a form")
        try:
            header, claims, signed, signature = jwt_parts(form["assertion"][0])
            state["key"].public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
            if header.get("alg") != "RS256" or header.get("kid") != state["key_id"]:
                errors.append("header %r" % header)
            if claims.get("iss") != EMAIL:
                errors.append("iss")
            if "https://www.googleapis.com/auth/firebase.messaging" not in claims.get("scope", "").split():
                errors.append("scope")
            if claims.get("aud") != state["origin"] + "/token":
                errors.append("aud %r" % claims.get("aud"))
            now = time.time()
            if not (now - 300 <= claims.get("iat", 0) <= now + 60) or not (0 < claims.get("exp", 0) - claims["iat"] <= 3600):
                errors.append("iat/exp")
        except Exception as error:
            errors.append("assertion: %r" % error)
        emit("token", errors=errors)
        if errors:
            return self.answer(400, {"error": "invalid_grant"})
        token = "ya29." + secrets.token_urlsafe(24)
        with lock:
            state["tokens"][token] = time.time() + state["lifetime"]
            state["issued"] += 1
        self.answer(200, {"access_token": token, "expires_in": state["lifetime"], "token_type": "Bearer"})

    def send_message(self, body):
        errors = []
        bearer = self.headers.get("Authorization", "")
        with lock:
            expires = state["tokens"].get(bearer[len("Bearer "):]) if bearer.startswith("Bearer ") else None
        if expires is None or expires < time.time():
            emit("push", id=None, status=401, errors=["bearer not a live token"])
            return self.answer(401, error_body(401, "THIRD_PARTY_AUTH_ERROR"))
        message, data, android, registration = {}, {}, {}, None
        try:
            message = json.loads(body)["message"]
            registration = message["token"]
            data = message.get("data", {})
            android = message.get("android", {})
            if "notification" in message:
                errors.append("not a data message")
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
                errors.append("data values must be strings")
            if sum(len(k.encode()) + len(v.encode()) for k, v in data.items()) > 4096:
                errors.append("data over 4096 bytes")
            if android.get("priority") not in ("HIGH", "NORMAL"):
                errors.append("android.priority")
            if not TTL.match(android.get("ttl", "")):
                errors.append("android.ttl")
        except Exception as error:
            errors.append("body: %r" % error)
        answer = scripts.next(registration)
        status = answer["status"] if not errors else 400
        emit("push", id=registration, status=status, data=data, android=android, errors=errors)
        if status == "hang":
            time.sleep(3600)
            return
        if status == 200:
            return self.answer(200, {"name": "projects/%s/messages/%d" % (PROJECT, secrets.randbits(48))})
        headers = [("Retry-After", answer["retry_after"])] if "retry_after" in answer else []
        self.answer(status, error_body(status, answer.get("reason", "INVALID_ARGUMENT")), headers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    port, state["origin"], cert_file = serve_https(Handler, args.dir)

    def handle(command):
        if command["cmd"] == "account":
            state["key"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            state["key_id"] = secrets.token_hex(20)
            pem = state["key"].private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()).decode()
            path = os.path.join(args.dir, "service-account.json")
            with open(path, "w") as f:
                json.dump({"type": "service_account", "project_id": PROJECT, "private_key_id": state["key_id"],
                           "private_key": pem, "client_email": EMAIL, "token_uri": state["origin"] + "/token"}, f)
            return {"file": path, "send_url": state["origin"] + "/v1/projects/%s/messages:send" % PROJECT}
        if command["cmd"] == "token_lifetime":
            state["lifetime"] = command["seconds"]
            return {}
        if command["cmd"] == "revoke":
            with lock:
                state["tokens"].clear()
            return {}
        raise ValueError("unknown command")

    emit("ready", port=port, ca=cert_file)
    command_loop(handle, scripts)


if __name__ == "__main__":
    main()
