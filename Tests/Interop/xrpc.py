"""A minimal blue.catbird.mls XRPC client (API.md): JSON in and out, bytes as {"$bytes": base64}."""
from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request

from atproto import AtprotoIdentity

NSID_PREFIX = "blue.catbird.mls."


class XRPCError(Exception):
    def __init__(self, method: str, status: int, error: str, message: str):
        super().__init__(f"{method}: HTTP {status} {error}: {message}")
        self.method = method
        self.status = status
        self.error = error
        self.message = message


def b64(data: bytes) -> dict:
    return {"$bytes": base64.b64encode(data).decode("ascii").rstrip("=")}


def unb64(value) -> bytes:
    text = value["$bytes"] if isinstance(value, dict) else value
    return base64.b64decode(text + "=" * (-len(text) % 4))


class XRPCClient:
    def __init__(self, base_url: str, identity: AtprotoIdentity, service_did: str = "did:web:localhost"):
        self.base_url = base_url.rstrip("/")
        self.identity = identity
        self.service_did = service_did

    def _call(self, name: str, method: str, params: dict | None = None, body: dict | None = None) -> dict:
        nsid = NSID_PREFIX + name
        url = f"{self.base_url}/xrpc/{nsid}"
        if params:
            url += "?" + urllib.parse.urlencode(params, doseq=True)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": "Bearer " + self.identity.token(self.service_did, nsid)}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                decoded = json.loads(raw)
            except ValueError:
                decoded = {}
            raise XRPCError(name, error.code, decoded.get("error", "?"), decoded.get("message", raw[:200].decode(errors="replace"))) from None

    def query(self, name: str, **params) -> dict:
        return self._call(name, "GET", params={k: v for k, v in params.items() if v is not None})

    def procedure(self, name: str, body: dict) -> dict:
        return self._call(name, "POST", body={k: v for k, v in body.items() if v is not None})

    # The methods the interop users call.

    def publish_key_packages(self, packages: list[bytes]) -> dict:
        return self.procedure("publishKeyPackages", {"keyPackages": [
            {"keyPackage": b64(p), "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"} for p in packages]})

    def key_package(self, did: str) -> bytes:
        output = self.query("getKeyPackages", dids=[did],
                            cipherSuite="MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519")
        for ref in output.get("keyPackages", []):
            if ref["did"] == did:
                return unb64(ref["keyPackage"])
        raise RuntimeError(f"no KeyPackage published for {did}")

    def welcome(self, convo_id: str) -> bytes:
        return unb64(self.query("getWelcome", convoId=convo_id)["welcome"])

    def confirm_welcome(self, convo_id: str) -> None:
        self.procedure("confirmWelcome", {"convoId": convo_id, "success": True})

    def messages(self, convo_id: str, since_seq: int) -> list[dict]:
        out: list[dict] = []
        while True:
            page = self.query("getMessages", convoId=convo_id, sinceSeq=since_seq, limit=100)["messages"]
            out += page
            if len(page) < 100:
                return out
            since_seq = page[-1]["seq"]

    def epoch(self, convo_id: str) -> int:
        return int(self.query("getEpoch", convoId=convo_id)["currentEpoch"])

    def send(self, convo_id: str, msg_id: str, ciphertext: bytes, epoch: int) -> dict:
        return self.procedure("sendMessage", {"convoId": convo_id, "msgId": msg_id, "ciphertext": b64(ciphertext),
                                              "epoch": epoch})
