"""Independent checks of the chat contract (`scripts/chat-checks.sh CAPTURE_FILE`; Tests/Interop/README.md).

Each line of the capture file (JSON Lines, written by the chat walkthrough) is one check:

  {"check": "xrpc", "nsid": "blue.catbird.chat.X", "part": "params"|"input"|"output", "value": {...}}
      validated against lexicon/chat/X.json by lexrpc and by the strict walk of chat_lexicon.py.
  {"check": "message", "nsid": "blue.catbird.chat.subscribeEvents", "value": {"$type": ..., ...}}
      a decoded stream message (the header's t as $type), validated against defs#subscriptionMessage.
  {"check": "signed", "body": {...}, "cbor": "<hex>", "signature": "<base64>", "publicKey": "<base64>"}
      (a) the body projected by the strict walk and encoded by libipld equals `cbor` byte for byte;
      (b) the signature verifies (cryptography's Ed25519) over signatureDomain + cbor;
      (c) the body validates against its $type's def with lexrpc;
      (d) keyId is the thumbprint of publicKey, and signaturePublicKey, where the body has one, is it.

Prints each failure (line, check, reasons) and one summary line; exits 1 on any failure.
"""
import argparse
import base64
import copy
import hashlib
import json
import sys

import libipld
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from lexrpc.base import Base

from chat_lexicon import DEFS, Invalid, Lexicons, Walker, data_model

WRAPPER = "dev.catbird.chatchecks."
PARTS = {"params": "parameters", "input": "input", "output": "output"}


class Lexrpc:
    """lexrpc over our lexicon files, adapted to two limits of lexrpc 3.0, meaning unchanged:

    - it refuses to load a top-level def of type `bytes` or `union`, and it does not validate an
      array item or a message schema that is a ref to a union def; so every ref to a def that is not
      an object is replaced by a copy of that def (refs inside made absolute);
    - it validates a def only as part of a method; so each def also gets a wrapper method
      `dev.catbird.chatchecks.<def>` whose input is {value: ref to the def}.
    """

    def __init__(self, lexicons):
        docs = copy.deepcopy(list(lexicons.docs.values()))
        for name, schema in lexicons.docs[DEFS]["defs"].items():
            docs.append({"lexicon": 1, "id": WRAPPER + name, "defs": {"main": {
                "type": "procedure", "input": {"encoding": "application/json", "schema": {
                    "type": "object", "required": ["value"],
                    "properties": {"value": {"type": "ref", "ref": f"{DEFS}#{name}"}}}}}}})
        for doc in docs:
            doc["defs"] = {name: self.inline(schema, doc["id"], lexicons) for name, schema in doc["defs"].items()
                           if schema.get("type") not in ("bytes", "union")}
        self.base = Base(lexicons=docs, validate=True)

    def inline(self, node, nsid, lexicons):
        if isinstance(node, list):
            return [self.inline(item, nsid, lexicons) for item in node]
        if not isinstance(node, dict):
            return node
        if node.get("type") == "ref":
            full, target = lexicons.resolve(node["ref"], nsid)
            if target.get("type") != "object":
                return self.inline(target, full.split("#")[0], lexicons)
            return {"type": "ref", "ref": full}
        if node.get("type") == "union":
            return {**node, "refs": [lexicons.resolve(ref, nsid)[0] for ref in node["refs"]]}
        return {key: self.inline(value, nsid, lexicons) for key, value in node.items()}

    def method(self, nsid, part, value):
        self.base.validate(nsid, PARTS[part], value)

    def definition(self, full_name, value):
        self.base.validate(WRAPPER + full_name.split("#")[1], "input", {"value": value})


class Checker:
    def __init__(self, lexicon_dir):
        self.lexicons = Lexicons(lexicon_dir)
        self.lexrpc = Lexrpc(self.lexicons)
        self.wire = Walker(self.lexicons)
        self.signed_wire = Walker(self.lexicons, bare_bytes=True)
        self.projection = Walker(self.lexicons, bare_bytes=True, transcript=True)
        self.signed_bodies = self.lexicons.signed_bodies()

    def check(self, line):
        """The reasons `line` fails (empty when it passes)."""
        kind = line.get("check")
        if kind == "xrpc":
            return self.xrpc(line)
        if kind == "message":
            return self.message(line)
        if kind == "signed":
            return self.signed(line)
        return [f"capture: unknown check {kind!r}"]

    def xrpc(self, line):
        nsid, part, value = line.get("nsid"), line.get("part"), line.get("value")
        if nsid not in self.lexicons.docs or nsid == DEFS or part not in PARTS:
            return [f"capture: no chat method {nsid!r} with part {part!r}"]
        main = self.lexicons.docs[nsid]["defs"]["main"]
        if not (main.get("parameters") if part == "params" else main.get(part, {}).get("encoding") == "application/json"):
            return [f"capture: {nsid} has no JSON {part} to check"]
        return (attempt("strict", lambda: self.wire.method_part(nsid, PARTS[part], value))
                + attempt("lexrpc", lambda: self.lexrpc.method(nsid, part, data_model(value))))

    def message(self, line):
        if line.get("nsid") != "blue.catbird.chat.subscribeEvents":
            return [f"capture: no chat subscription {line.get('nsid')!r}"]
        value = line.get("value")
        return (attempt("strict", lambda: self.wire.value(value, {"type": "ref", "ref": "#subscriptionMessage"}, DEFS, "$"))
                + attempt("lexrpc", lambda: self.lexrpc.definition(f"{DEFS}#subscriptionMessage", data_model(value))))

    def signed(self, line):
        body = line.get("body")
        tag = body.get("$type") if isinstance(body, dict) else None
        if tag not in self.signed_bodies:
            return [f"capture: body $type {tag!r} is not a signed body of the contract"]
        reasons = []
        cbor = decode(line, "cbor", bytes.fromhex, reasons)
        signature = decode(line, "signature", standard_base64, reasons, size=64)
        public_key = decode(line, "publicKey", standard_base64, reasons, size=32)

        projected = []
        reasons += attempt("strict", lambda: projected.append(self.projection.tagged(body, tag)))
        if projected and cbor is not None:
            ours = libipld.encode_dag_cbor(projected[0])
            if ours != cbor:
                at = next((i for i, (a, b) in enumerate(zip(ours, cbor)) if a != b), min(len(ours), len(cbor)))
                reasons.append(f"cbor: the capture's {len(cbor)} bytes differ from libipld's encoding of the "
                               f"projection ({len(ours)} bytes) from byte {at} on")
        if None not in (cbor, signature, public_key) and isinstance(body.get("signatureDomain"), str):
            transcript = body["signatureDomain"].encode() + cbor
            try:
                Ed25519PublicKey.from_public_bytes(public_key).verify(signature, transcript)
            except InvalidSignature:
                reasons.append("signature: does not verify over signatureDomain + cbor")
        if public_key is not None:
            thumbprint = base64.urlsafe_b64encode(hashlib.sha256(public_key).digest()).decode().rstrip("=")
            if body.get("keyId") != thumbprint:
                reasons.append(f"key: keyId {body.get('keyId')!r} is not the publicKey's thumbprint {thumbprint}")
            if "signaturePublicKey" in body and projected and projected[0]["signaturePublicKey"] != public_key:
                reasons.append("key: signaturePublicKey is not the publicKey that signed")
        # lexrpc reads bytes as the data model has them; a bare base64 string is bytes only by the schema
        walked = []
        attempt("strict", lambda: walked.append(self.signed_wire.tagged(body, tag)))
        reasons += attempt("lexrpc", lambda: self.lexrpc.definition(tag, walked[0] if walked else data_model(body)))
        return reasons


def attempt(label, step):
    """Runs `step`; its refusal as a one-item reason list, labelled by who refused."""
    try:
        step()
        return []
    except Invalid as e:
        return [f"{label}: {e}"]
    except (ValueError, NotImplementedError, KeyError, TypeError) as e:  # lexrpc's ValidationError is a ValueError
        return [f"{label}: {e}"]


def standard_base64(text):
    return base64.b64decode(text, validate=True)


def decode(line, field, decoder, reasons, size=None):
    """`line[field]` decoded, or None with the reason added."""
    try:
        raw = decoder(line[field])
        if size is not None and len(raw) != size:
            raise ValueError(f"{len(raw)} bytes, not {size}")
        return raw
    except (KeyError, TypeError, ValueError) as e:
        reasons.append(f"capture: {field}: {e}")
        return None


def run(checker, lines, out=sys.stdout):
    """Checks numbered lines; prints failures and the summary. Returns the number of failures."""
    counts = {kind: [0, 0] for kind in ("xrpc", "message", "signed")}
    failed = 0
    for number, text in lines:
        line = None
        try:
            line = json.loads(text)
            reasons = checker.check(line) if isinstance(line, dict) else ["capture: not a JSON object"]
            kind = line.get("check") if isinstance(line, dict) else None
        except json.JSONDecodeError as e:
            reasons, kind = [f"capture: not JSON: {e}"], None
        if kind in counts:
            counts[kind][0 if not reasons else 1] += 1
        if reasons:
            failed += 1
            what = " ".join(str(line.get(k)) for k in ("check", "nsid", "part") if isinstance(line, dict) and k in line)
            if isinstance(line, dict) and line.get("check") == "signed" and isinstance(line.get("body"), dict):
                what += f" {line['body'].get('$type')}"
            print(f"chat checks: line {number} ({what or 'unreadable'}) FAILED: " + "; ".join(reasons), file=out)
    passed = sum(c[0] for c in counts.values())
    if passed + failed == 0:
        print("chat checks: the capture holds no line to check", file=out)
        return 1
    detail = ", ".join(f"{kind} {c[0]}/{c[0] + c[1]}" for kind, c in counts.items())
    print(f"chat checks: {passed} passed, {failed} failed ({detail})", file=out)
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lexicons", required=True, help="lexicon/chat")
    parser.add_argument("capture", nargs="?", help="the capture file (JSON Lines)")
    parser.add_argument("--self-test", action="store_true", help="check the checker with hand-made lines")
    args = parser.parse_args()
    checker = Checker(args.lexicons)
    if args.self_test:
        import chat_checks_selftest
        sys.exit(chat_checks_selftest.main(checker))
    if not args.capture:
        parser.error("a capture file or --self-test")
    with open(args.capture) as f:
        lines = [(n, text) for n, text in enumerate(f, 1) if text.strip()]
    sys.exit(1 if run(checker, lines) else 0)


if __name__ == "__main__":
    main()
