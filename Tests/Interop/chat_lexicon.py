"""The chat contract's lexicon files (lexicon/chat/), read independently of the Swift code.

`Walker` walks a JSON value against its schema field by field, as the contract's strict JSON rules
and its signing projection do (../shared/spec/CHAT.md §1.3): unknown fields, nulls, floats, negative
or unsafe integers, unknown or short union tags, malformed identifiers, timestamps and `$bytes`, and
arrays out of the contract's order are refused, each with the path where it happened. What it
returns depends on its mode: the AT Protocol data model (bytes as Python bytes, everything else as
in JSON) for validators, or the signing projection (UUIDs of `#operationId`/`#deviceId` as their 16
raw bytes) that libipld encodes into a transcript.
"""
import base64
import datetime
import json
import os
import re
import uuid

import grapheme

DEFS = "blue.catbird.chat.defs"
MAX_SAFE_INTEGER = 2**53 - 1
# Refs whose values are UUID text in JSON and 16 raw bytes in a transcript; nothing in the schema
# itself says so (CHAT.md §1.3).
UUID_REFS = {f"{DEFS}#operationId", f"{DEFS}#deviceId"}
UUID_V4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
CANONICAL_DATETIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
KEY_ID = re.compile(r"[A-Za-z0-9_-]{43}")
PLC_DID = re.compile(r"did:plc:[a-z2-7]{24}")
HOST_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
ANY_DID = re.compile(r"did:[a-z]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._-]")
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]+")


class Invalid(Exception):
    """A value the contract refuses, and where."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")


class Lexicons:
    """Every lexicon document of a directory, by id."""

    def __init__(self, directory):
        self.docs = {}
        for name in sorted(os.listdir(directory)):
            if name.endswith(".json"):
                with open(os.path.join(directory, name)) as f:
                    doc = json.load(f)
                self.docs[doc["id"]] = doc

    def resolve(self, ref, nsid):
        """(full name, schema) of `ref` as written in lexicon `nsid`."""
        target, _, name = ref.partition("#")
        target = target or nsid
        schema = self.docs.get(target, {}).get("defs", {}).get(name or "main")
        if schema is None:
            raise KeyError(f"unresolved ref {ref} in {nsid}")
        return (f"{target}#{name}" if name else target), schema

    def signed_bodies(self):
        """Full names of the defs that a signed request's body may be (the members of each
        `signed*` wrapper's body union)."""
        names = set()
        for schema in self.docs[DEFS]["defs"].values():
            body = schema.get("properties", {}).get("body", {})
            if schema.get("type") == "object" and body.get("type") == "union":
                names |= {self.resolve(ref, DEFS)[0] for ref in body["refs"]}
        return names


def decode_base64(text, path):
    """Standard base64 with padding, canonical (the only spelling that re-encodes to itself)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise Invalid(path, "not standard padded base64") from None
    if base64.b64encode(raw).decode() != text:
        raise Invalid(path, "not canonical standard padded base64")
    return raw


def uuid_bytes(text):
    return uuid.UUID(text).bytes


def did_bytes(text):
    return text.encode()


def bytes_value(value):
    """The raw bytes of a validated bytes field in either JSON form."""
    return base64.b64decode(value["$bytes"] if isinstance(value, dict) else value)


# The contract's orderings (CHAT.md §1.3 and the defs): arrays strictly ascending by these keys,
# refused rather than sorted. Keyed by (owning def or method part, property).
ORDERINGS = {
    (f"{DEFS}#creationManifest", "participants"): lambda p: did_bytes(p["userDid"]),
    (f"{DEFS}#resetActivationManifest", "participants"): lambda p: did_bytes(p["userDid"]),
    (f"{DEFS}#transitionManifest", "participantChanges"): lambda c: did_bytes(c["userDid"]),
    (f"{DEFS}#policyTransitionBody", "participantChanges"): lambda c: did_bytes(c["userDid"]),
    # removeLeaf before addLeafByRecovery of the same device
    (f"{DEFS}#transitionManifest", "leafChanges"): lambda c: (
        did_bytes(c["userDid"]), uuid_bytes(c["deviceId"]), 0 if c["$type"] == f"{DEFS}#removeLeaf" else 1),
    (f"{DEFS}#deviceEnrollmentBody", "keyPackages"): lambda k: bytes_value(k["keyPackageRef"]),
    (f"{DEFS}#keyPackageReplenishmentBody", "keyPackages"): lambda k: bytes_value(k["keyPackageRef"]),
    (f"{DEFS}#conversationState", "participants"): lambda p: did_bytes(p["userDid"]),
    (f"{DEFS}#conversationState", "leaves"): lambda l: (did_bytes(l["userDid"]), uuid_bytes(l["deviceId"])),
    ("blue.catbird.chat.getDevices#output", "devices"): lambda d: (did_bytes(d["userDid"]), uuid_bytes(d["deviceId"])),
    ("blue.catbird.chat.getDevices#parameters", "userDids"): did_bytes,
}


class Walker:
    """One walk mode.

    bare_bytes: a bytes field may also be a bare padded base64 string (signed bodies; upstream's
      server accepts both), not only {"$bytes": ...}.
    transcript: return the signing projection (UUIDs as 16 bytes) instead of the data model.
    """

    def __init__(self, lexicons, *, bare_bytes=False, transcript=False):
        self.lexicons = lexicons
        self.bare_bytes = bare_bytes
        self.transcript = transcript

    def method_part(self, nsid, part, value):
        """A method's `parameters`, `input` or `output` value."""
        main = self.lexicons.docs[nsid]["defs"]["main"]
        if part == "parameters":
            schema = main.get("parameters")
        else:
            body = main.get(part) or {}
            schema = body.get("schema") if body.get("encoding") == "application/json" else None
        if schema is None:
            raise Invalid("$", f"{nsid} has no JSON {part}")
        return self.value(value, schema, nsid, "$", owner=f"{nsid}#{part}")

    def tagged(self, value, full_name):
        """A value that carries its own `$type` naming `full_name` (a signed body, a stream message)."""
        return self.value(value, {"type": "union", "refs": [full_name], "closed": True}, DEFS, "$")

    def value(self, value, schema, nsid, path, owner=None):
        kind = schema.get("type")
        if kind == "ref":
            full, target = self.lexicons.resolve(schema["ref"], nsid)
            result = self.value(value, target, full.split("#")[0], path, owner=full)
            self.grammar(full, value, path)
            if full in UUID_REFS and self.transcript:
                return uuid_bytes(value)
            return result
        if value is None:
            raise Invalid(path, "null")
        if "const" in schema and value != schema["const"]:
            raise Invalid(path, f"{json.dumps(value)[:40]} is not the constant {json.dumps(schema['const'])}")
        if "enum" in schema and value not in schema["enum"]:
            raise Invalid(path, f"{json.dumps(value)[:40]} is not one of {schema['enum']}")
        if kind in ("object", "params"):
            return self.object(value, schema, nsid, path, owner, tag=None)
        if kind == "union":
            return self.union(value, schema, nsid, path)
        if kind == "array":
            return self.array(value, schema, nsid, path, owner)
        if kind == "string":
            return self.string(value, schema, path)
        if kind == "integer":
            return self.integer(value, schema, path)
        if kind == "boolean":
            if type(value) is not bool:
                raise Invalid(path, f"{type(value).__name__}, not a boolean")
            return value
        if kind == "bytes":
            return self.bytes(value, schema, path)
        raise Invalid(path, f"schema type {kind!r} is not one the chat lexicons use")

    def object(self, value, schema, nsid, path, owner, tag):
        if not isinstance(value, dict):
            raise Invalid(path, f"{type(value).__name__}, not an object")
        properties = schema.get("properties", {})
        for key in value:
            if key == "$type":
                if tag is None:
                    raise Invalid(path, "$type where the schema has no union")
            elif key not in properties:
                raise Invalid(path, f"unknown field {key!r}")
        for key in schema.get("required", []):
            if key not in value:
                raise Invalid(path, f"missing required field {key!r}")
        result = {"$type": tag} if tag is not None else {}
        for key, property_schema in properties.items():
            if key in value:
                result[key] = self.value(value[key], property_schema, nsid, f"{path}.{key}", owner=owner)
                if (order := ORDERINGS.get((owner, key))):
                    keys = [order(item) for item in value[key]]
                    for i in range(1, len(keys)):
                        if not keys[i - 1] < keys[i]:
                            raise Invalid(f"{path}.{key}[{i}]", "not strictly after the item before it (the contract's order)")
        return result

    def union(self, value, schema, nsid, path):
        if not isinstance(value, dict):
            raise Invalid(path, f"{type(value).__name__}, not an object")
        tag = value.get("$type")
        if not isinstance(tag, str):
            raise Invalid(path, "union member without $type")
        members = {self.lexicons.resolve(ref, nsid)[0]: ref for ref in schema["refs"]}
        if tag not in members:
            raise Invalid(path, f"$type {tag!r} is not one of {sorted(members)}")
        full, target = self.lexicons.resolve(members[tag], nsid)
        if target.get("type") != "object":
            raise Invalid(path, f"union member {full} is not an object")
        return self.object(value, target, full.split("#")[0], path, owner=full, tag=full)

    def array(self, value, schema, nsid, path, owner):
        if not isinstance(value, list):
            raise Invalid(path, f"{type(value).__name__}, not an array")
        self.length(len(value), schema, path, "items")
        return [self.value(item, schema["items"], nsid, f"{path}[{i}]", owner=owner) for i, item in enumerate(value)]

    def string(self, value, schema, path):
        if not isinstance(value, str):
            raise Invalid(path, f"{type(value).__name__}, not a string")
        self.length(len(value.encode()), schema, path, "UTF-8 bytes")
        graphemes = None
        if "minGraphemes" in schema or "maxGraphemes" in schema:
            graphemes = grapheme.length(value)
        if graphemes is not None and not schema.get("minGraphemes", 0) <= graphemes <= schema.get("maxGraphemes", graphemes):
            raise Invalid(path, f"{graphemes} graphemes, outside {schema.get('minGraphemes')}..{schema.get('maxGraphemes')}")
        checks = {"did": ANY_DID, "uri": URI}
        if (fmt := schema.get("format")) in checks and not checks[fmt].fullmatch(value):
            raise Invalid(path, f"{value[:60]!r} is not a {fmt}")
        return value

    def integer(self, value, schema, path):
        if type(value) is not int:
            raise Invalid(path, f"{type(value).__name__}, not an integer")
        low, high = max(schema.get("minimum", 0), 0), min(schema.get("maximum", MAX_SAFE_INTEGER), MAX_SAFE_INTEGER)
        if not low <= value <= high:
            raise Invalid(path, f"{value} outside {low}..{high}")
        return value

    def bytes(self, value, schema, path):
        if isinstance(value, dict) and set(value) == {"$bytes"} and isinstance(value["$bytes"], str):
            raw = decode_base64(value["$bytes"], f"{path}.$bytes")
        elif isinstance(value, str) and self.bare_bytes:
            raw = decode_base64(value, path)
        else:
            raise Invalid(path, 'bytes not given as {"$bytes": "<standard padded base64>"}')
        self.length(len(raw), schema, path, "bytes")
        return raw

    @staticmethod
    def length(count, schema, path, unit):
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if count < low or (high is not None and count > high):
            raise Invalid(path, f"{count} {unit}, outside {low}..{high}")

    @staticmethod
    def grammar(full, value, path):
        """The grammars the contract gives its identifier and time defs (CHAT.md §1.3)."""
        if full in UUID_REFS:
            if not UUID_V4.fullmatch(value):
                raise Invalid(path, f"{value!r} is not a lowercase hyphenated UUIDv4")
        elif full == f"{DEFS}#canonicalDatetime":
            match = CANONICAL_DATETIME.fullmatch(value)
            try:
                datetime.datetime(*(int(part) for part in match.groups()[:6])) if match else None
            except ValueError:
                match = None
            if not match:
                raise Invalid(path, f"{value!r} is not a canonical datetime (YYYY-MM-DDTHH:MM:SS.sssZ)")
        elif full == f"{DEFS}#keyId":
            if not KEY_ID.fullmatch(value) or base64.urlsafe_b64encode(
                    base64.urlsafe_b64decode(value + "=")).decode().rstrip("=") != value:
                raise Invalid(path, f"{value!r} is not unpadded base64url of 32 bytes")
        elif full == f"{DEFS}#bareDid":
            if not (PLC_DID.fullmatch(value) or web_did(value)):
                raise Invalid(path, f"{value!r} is neither did:plc with 24 base32 characters nor a host did:web")


def web_did(value):
    """did:web naming a lowercase host of two or more labels, with no port, path or IP literal."""
    if not value.startswith("did:web:"):
        return False
    labels = value[len("did:web:"):].split(".")
    return (len(value) - len("did:web:") <= 253 and len(labels) >= 2
            and all(HOST_LABEL.fullmatch(label) for label in labels) and not labels[-1][0].isdigit())


def data_model(value):
    """JSON as a generic AT Protocol client reads it, knowing no schema: {"$bytes": ...} becomes
    bytes, padded or not (the data model's own spelling has no padding; the contract's has it, which
    the strict walk checks); anything else stays as it is, for the validator to refuse."""
    if isinstance(value, dict):
        if set(value) == {"$bytes"} and isinstance(value["$bytes"], str):
            text = value["$bytes"]
            try:
                return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
            except ValueError:
                return value
        return {k: data_model(v) for k, v in value.items()}
    if isinstance(value, list):
        return [data_model(v) for v in value]
    return value
