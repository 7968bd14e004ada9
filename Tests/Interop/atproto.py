"""AT Protocol identities for the interop users: a did:plc with its DID document registered at the
dev PLC directory, and service-auth JWTs signed with its key (AUTH.md), ES256K or ES256.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import time
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

# Curve order n of each curve, for the low-S rule the service enforces (AUTH.md).
_ORDER = {
    "ES256K": 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141,
    "ES256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
}
# Multicodec prefixes of compressed public keys (AUTH.md: secp256k1-pub, p256-pub).
_MULTICODEC = {"ES256K": b"\xe7\x01", "ES256": b"\x80\x24"}
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _base58btc(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    out = ""
    while number:
        number, digit = divmod(number, 58)
        out = _B58[digit] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def random_plc() -> str:
    """did:plc: plus 24 base32 characters (the dev PLC accepts any well-formed identifier)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    return "did:plc:" + "".join(alphabet[b & 31] for b in os.urandom(24))


class AtprotoIdentity:
    """A DID and its atproto signing key."""

    def __init__(self, alg: str = "ES256K"):
        if alg not in _ORDER:
            raise ValueError(f"unsupported alg {alg}")
        self.alg = alg
        self.did = random_plc()
        self._key = ec.generate_private_key(ec.SECP256K1() if alg == "ES256K" else ec.SECP256R1())

    def multikey(self) -> str:
        point = self._key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.CompressedPoint)
        return "z" + _base58btc(_MULTICODEC[self.alg] + point)

    def did_document(self) -> dict:
        return {
            "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
            "id": self.did,
            "alsoKnownAs": [],
            "verificationMethod": [{"id": self.did + "#atproto", "type": "Multikey", "controller": self.did,
                                    "publicKeyMultibase": self.multikey()}],
            "service": [{"id": "#atproto_pds", "type": "AtprotoPersonalDataServer",
                         "serviceEndpoint": "http://127.0.0.1"}],
        }

    def register(self, plc_url: str) -> None:
        """POST the DID document to the dev PLC directory (`catbird-mls dev-plc`)."""
        body = json.dumps(self.did_document()).encode()
        request = urllib.request.Request(f"{plc_url}/{self.did}", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            if response.status != 200:
                raise RuntimeError(f"dev PLC refused {self.did}: HTTP {response.status}")

    def token(self, audience: str, nsid: str, lifetime: int = 60) -> str:
        """A service-auth JWT for one call: iss, aud, lxm, iat, exp and a fresh jti (AUTH.md)."""
        header = {"typ": "JWT", "alg": self.alg}
        now = int(time.time())
        payload = {"iss": self.did, "aud": audience, "lxm": nsid, "iat": now, "exp": now + lifetime,
                   "jti": secrets.token_hex(16)}
        signing_input = (_b64url(json.dumps(header, separators=(",", ":")).encode()) + "." +
                         _b64url(json.dumps(payload, separators=(",", ":")).encode()))
        der = self._key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        order = _ORDER[self.alg]
        if s > order // 2:  # low-S, as PDSes sign
            s = order - s
        return signing_input + "." + _b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
