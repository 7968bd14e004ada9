"""What the push service stand-ins share: a TLS certificate for 127.0.0.1, JSON lines out (events)
and in (commands), and per-recipient scripts of answers.

Each stand-in is a real protocol peer started by a test: it listens on 127.0.0.1 (an ephemeral
port), prints {"event": "ready", "port": ..., "ca": <certificate file>} once it accepts, and then one
JSON line per request it received, with every check it made and the answer it gave. Commands come
on stdin, one JSON object per line; each is answered with one line ({"event": "ok", ...}).
"""
import base64
import datetime
import ipaddress
import json
import os
import ssl
import sys
import threading
import time
from http.server import ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_out = threading.Lock()


def emit(event, **fields):
    """One JSON line on stdout; `t` is CLOCK_MONOTONIC in nanoseconds (comparable with the test's)."""
    fields["event"] = event
    fields.setdefault("t", time.monotonic_ns())
    line = json.dumps(fields, sort_keys=True)
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def certificate(directory):
    """A self-signed P-256 certificate for 127.0.0.1 and localhost; returns (cert file, key file).
    One already in `directory` is reused (a stand-in started again in its place)."""
    cert_file = os.path.join(directory, "standin-cert.pem")
    key_file = os.path.join(directory, "standin-key.pem")
    if os.path.exists(cert_file) and os.path.exists(key_file):
        return cert_file, key_file
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push-standin")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    with open(cert_file, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_file, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_file, key_file


class Scripts:
    """Answers per recipient (a token, a subscription): a queue of answers taken one per request,
    then `default`. An answer is a dict: {"status": 410, "retry_after": "2", "reason": "..."} or
    {"status": "hang"} (never answered) or {"status": "redirect"}."""

    def __init__(self, default):
        self.default = default
        self.queues = {}
        self.lock = threading.Lock()

    def set(self, key, answers):
        with self.lock:
            self.queues[key] = list(answers)

    def next(self, key):
        with self.lock:
            queue = self.queues.get(key)
            if queue:
                return queue.pop(0)
            return dict(self.default)


def command_loop(handle, scripts):
    """Reads commands from stdin until it closes (the test ended), then exits the process. Every
    stand-in takes {"cmd": "script", "id": ..., "answers": [...]} for `scripts`; `handle` the rest."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            command = json.loads(line)
            if command.get("cmd") == "script":
                scripts.set(command["id"], command["answers"])
                reply = {}
            else:
                reply = handle(command) or {}
            emit("ok", cmd=command.get("cmd"), **reply)
        except Exception as error:  # a bad command is the test's bug: say so
            emit("error", message=repr(error))
    os._exit(0)


def jwt_parts(token):
    """(header, claims, signing input, signature) of a compact JWS, or raises ValueError."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS")
    header = json.loads(b64url_decode(parts[0]))
    claims = json.loads(b64url_decode(parts[1]))
    return header, claims, (parts[0] + "." + parts[1]).encode(), b64url_decode(parts[2])


def serve_https(handler, directory):
    """An HTTP/1.1 server over TLS on 127.0.0.1 (ephemeral port) in a thread of its own;
    returns (port, origin, certificate file)."""
    cert_file, key_file = certificate(directory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return port, "https://127.0.0.1:%d" % port, cert_file
