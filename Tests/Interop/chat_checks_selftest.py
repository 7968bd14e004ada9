"""The checker checked (`scripts/chat-checks.sh --self-test`): hand-made capture lines, each with the
verdict it must get. A passing signed line's cbor is libipld's encoding of a projection written out
here by hand, so the strict walk's projection must equal it; a failing line must fail for exactly
the reasons named (by who refused: strict walk, lexrpc, cbor, signature, key) and with the words given.
"""
import base64
import copy
import hashlib
import io
import json
import uuid

import libipld
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from chat_checks import run
from chat_lexicon import DEFS

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PUBLIC = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
OTHER_PUBLIC = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

ALICE, BOB, CAROL = "did:plc:" + "a" * 24, "did:plc:" + "b" * 24, "did:plc:" + "c" * 24
DEVICE = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
CONVERSATION = "0f8e7d6c-5b4a-4938-a7b6-c5d4e3f2a1b0"
MESSAGE = "6f1c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
TRANSITION = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
ENTRY = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
SIGNED_AT = "2026-08-22T10:00:00.000Z"
GROUP_ID = bytes(range(32))
CONTEXT_HASH = hashlib.sha256(b"group context").digest()
CONFIRMATION_TAG = hashlib.sha256(b"confirmation tag").digest()
CIPHERTEXT = bytes(range(40))


def b64(raw):
    return base64.b64encode(raw).decode()


def B(raw):
    return {"$bytes": b64(raw)}


def U(text):
    return uuid.UUID(text).bytes


def key_id(public):
    return base64.urlsafe_b64encode(hashlib.sha256(public).digest()).decode().rstrip("=")


def coordinates(state_version):
    """The same coordinates as JSON and as their projection."""
    wire = {"conversationId": CONVERSATION, "generation": 0, "stateVersion": state_version, "groupId": B(GROUP_ID),
            "epoch": 2, "groupContextHash": B(CONTEXT_HASH), "confirmationTag": B(CONFIRMATION_TAG), "lifecycle": "active"}
    projected = {"conversationId": U(CONVERSATION), "generation": 0, "stateVersion": state_version, "groupId": GROUP_ID,
                 "epoch": 2, "groupContextHash": CONTEXT_HASH, "confirmationTag": CONFIRMATION_TAG, "lifecycle": "active"}
    return wire, projected


def send_body():
    prior, prior_projected = coordinates(3)
    aad_prior = {**prior, "conversationId": B(U(CONVERSATION))}
    wire = {
        "$type": f"{DEFS}#applicationSendBody", "signatureDomain": "CATBIRD-CHAT-MESSAGE\0", "messageId": MESSAGE,
        "actorDid": ALICE, "actorDeviceId": DEVICE, "keyId": key_id(PUBLIC), "authGeneration": 1, "prior": prior,
        "aad": {"protocolVersion": "1", "conversationId": B(U(CONVERSATION)), "generation": 0,
                "messageId": B(U(MESSAGE)), "prior": aad_prior},
        "applicationMessage": {"framing": "mlsMessage", "contentType": "privateMessageApplication",
                               "bytes": B(CIPHERTEXT), "sha256": B(hashlib.sha256(CIPHERTEXT).digest())},
        "blobBindings": [], "signedAt": SIGNED_AT}
    projected = {
        "$type": f"{DEFS}#applicationSendBody", "signatureDomain": "CATBIRD-CHAT-MESSAGE\0", "messageId": U(MESSAGE),
        "actorDid": ALICE, "actorDeviceId": U(DEVICE), "keyId": key_id(PUBLIC), "authGeneration": 1,
        "prior": prior_projected,
        "aad": {"protocolVersion": "1", "conversationId": U(CONVERSATION), "generation": 0, "messageId": U(MESSAGE),
                "prior": prior_projected},
        "applicationMessage": {"framing": "mlsMessage", "contentType": "privateMessageApplication",
                               "bytes": CIPHERTEXT, "sha256": hashlib.sha256(CIPHERTEXT).digest()},
        "blobBindings": [], "signedAt": SIGNED_AT}
    return wire, projected


def policy_body():
    prior, prior_projected = coordinates(3)
    after, after_projected = coordinates(4)
    provenance = {"invitationTransitionId": TRANSITION, "invitedByDid": ALICE, "invitedByDeviceId": DEVICE}
    wire = {
        "$type": f"{DEFS}#policyTransitionBody", "signatureDomain": "CATBIRD-CHAT-POLICY\0", "transitionId": TRANSITION,
        "actorDid": ALICE, "actorDeviceId": DEVICE, "keyId": key_id(PUBLIC), "authGeneration": 1,
        "prior": prior, "next": after,
        "participantChanges": [
            {"$type": f"{DEFS}#addParticipant", "userDid": BOB, "role": "member", "status": "pending",
             "invitationProvenance": provenance},
            {"$type": f"{DEFS}#removeParticipant", "userDid": CAROL}],
        "idempotencyKey": MESSAGE, "signedAt": SIGNED_AT}
    projected = {
        "$type": f"{DEFS}#policyTransitionBody", "signatureDomain": "CATBIRD-CHAT-POLICY\0", "transitionId": U(TRANSITION),
        "actorDid": ALICE, "actorDeviceId": U(DEVICE), "keyId": key_id(PUBLIC), "authGeneration": 1,
        "prior": prior_projected, "next": after_projected,
        "participantChanges": [
            {"$type": f"{DEFS}#addParticipant", "userDid": BOB, "role": "member", "status": "pending",
             "invitationProvenance": {"invitationTransitionId": U(TRANSITION), "invitedByDid": ALICE,
                                      "invitedByDeviceId": U(DEVICE)}},
            {"$type": f"{DEFS}#removeParticipant", "userDid": CAROL}],
        "idempotencyKey": U(MESSAGE), "signedAt": SIGNED_AT}
    return wire, projected


def signed(wire, projected, cbor=None, signature=None, public=PUBLIC):
    """A signed line: cbor defaults to libipld's encoding of the hand projection, signed by KEY."""
    cbor = libipld.encode_dag_cbor(projected) if cbor is None else cbor
    if signature is None:
        signature = KEY.sign(wire["signatureDomain"].encode() + cbor)
    return {"check": "signed", "body": wire, "cbor": cbor.hex(), "signature": b64(signature), "publicKey": b64(public)}


def application_entry(send_wire, signature, tagged):
    entry = {"entryId": ENTRY, "conversationId": CONVERSATION, "seq": 7,
             "signedRequest": {"body": send_wire, "signature": B(signature)}, "receivedAt": SIGNED_AT}
    return {"$type": f"{DEFS}#applicationEntry", **entry} if tagged else entry


def device_view():
    return {"deviceId": DEVICE, "keyId": key_id(PUBLIC), "signaturePublicKey": B(PUBLIC), "authGeneration": 1,
            "status": "active", "createdAt": SIGNED_AT, "updatedAt": SIGNED_AT,
            "availablePackageCount": 20, "reservedPackageCount": 0}


def xrpc(nsid, part, value):
    return {"check": "xrpc", "nsid": f"blue.catbird.chat.{nsid}", "part": part, "value": value}


def message(value):
    return {"check": "message", "nsid": "blue.catbird.chat.subscribeEvents", "value": value}


def cases():
    """(name, line, None when it must pass, else (labels of the refusals, words they must hold))."""
    send_wire, send_projected = send_body()
    send_line = signed(send_wire, send_projected)
    send_signature = base64.b64decode(send_line["signature"])
    policy_wire, policy_projected = policy_body()

    bare = copy.deepcopy(send_wire)
    bare["prior"]["groupId"] = b64(GROUP_ID)
    bare["applicationMessage"]["bytes"] = b64(CIPHERTEXT)

    flipped = bytearray(send_signature)
    flipped[10] ^= 1
    one_byte_off = bytearray(libipld.encode_dag_cbor(send_projected))
    one_byte_off[-3] ^= 1
    unknown_field = {**send_wire, "note": "hello"}
    uppercase = {**send_wire, "messageId": MESSAGE.upper()}
    swapped_wire, swapped_projected = copy.deepcopy(policy_wire), copy.deepcopy(policy_projected)
    swapped_wire["participantChanges"].reverse()
    swapped_projected["participantChanges"].reverse()
    short_tag = copy.deepcopy(policy_wire)
    short_tag["participantChanges"][1]["$type"] = "#removeParticipant"
    foreign_key_wire = {**send_wire, "keyId": key_id(OTHER_PUBLIC)}
    foreign_key_projected = {**send_projected, "keyId": key_id(OTHER_PUBLIC)}
    other_domain_wire = {**send_wire, "signatureDomain": "CATBIRD-CHAT-TYPING\0"}
    other_domain_projected = {**send_projected, "signatureDomain": "CATBIRD-CHAT-TYPING\0"}

    entries_output = {"entries": [application_entry(send_wire, send_signature, tagged=True)], "nextAfterSeq": 7,
                      "hasMore": False}
    short_signature = copy.deepcopy(entries_output)
    short_signature["entries"][0]["signedRequest"]["signature"] = B(send_signature[:63])
    unpadded = copy.deepcopy(entries_output)
    unpadded["entries"][0]["signedRequest"]["signature"] = {"$bytes": b64(send_signature).rstrip("=")}
    own_devices = {"items": [{"device": device_view()}], "hasMore": False, "snapshotExpiresAt": SIGNED_AT}
    entries_params = {"actorDeviceId": DEVICE, "conversationId": CONVERSATION, "afterSeq": 0, "limit": 100}
    envelope = {"$type": f"{DEFS}#eventEnvelope", "previousCursor": "c1", "cursor": "c2", "createdAt": SIGNED_AT,
                "payload": {"$type": f"{DEFS}#messageAvailableEvent", "conversationId": CONVERSATION, "seq": 7}}
    short_payload_tag = copy.deepcopy(envelope)
    short_payload_tag["payload"]["$type"] = "#messageAvailableEvent"
    typing = {"$type": f"{DEFS}#typingEvent", "typingId": MESSAGE, "conversationId": CONVERSATION, "actorDid": ALICE,
              "actorDeviceId": DEVICE, "isTyping": True, "expiresAt": SIGNED_AT}

    return [
        ("signed applicationSendBody", send_line, None),
        ("signed applicationSendBody, bytes as bare base64", signed(bare, send_projected), None),
        ("signed policyTransitionBody with union members", signed(policy_wire, policy_projected), None),
        ("a wrong signature", signed(send_wire, send_projected, signature=bytes(flipped)),
         ({"signature"}, ["does not verify"])),
        ("a cbor one byte off (signed as sent)", signed(send_wire, send_projected, cbor=bytes(one_byte_off)),
         ({"cbor"}, ["differ from libipld"])),
        ("an unknown field in a signed body", {**send_line, "body": unknown_field},
         ({"strict"}, ["unknown field 'note'"])),
        ("an uppercase UUID in a signed body", {**send_line, "body": uppercase},
         ({"strict"}, ["messageId", "lowercase hyphenated UUIDv4"])),
        ("participantChanges out of order", signed(swapped_wire, swapped_projected),
         ({"strict"}, ["participantChanges[1]", "contract's order"])),
        ("a union member tagged #name only", {**signed(policy_wire, policy_projected), "body": short_tag},
         ({"strict", "lexrpc"}, ["'#removeParticipant' is not one of"])),
        ("a keyId that is not the signer's", signed(foreign_key_wire, foreign_key_projected),
         ({"key"}, ["not the publicKey's thumbprint"])),
        ("a signature over another domain", signed(other_domain_wire, other_domain_projected),
         ({"strict", "lexrpc"}, ["signatureDomain", "constant"])),
        ("getEntries params", xrpc("getEntries", "params", entries_params), None),
        ("getDevices params", xrpc("getDevices", "params", {"actorDeviceId": DEVICE, "userDids": [ALICE, BOB]}), None),
        ("sendMessage input", xrpc("sendMessage", "input", {"signedRequest": {"body": send_wire, "signature": B(send_signature)}}), None),
        ("sendMessage output", xrpc("sendMessage", "output", {"entry": application_entry(send_wire, send_signature, tagged=False)}), None),
        ("getEntries output", xrpc("getEntries", "output", entries_output), None),
        ("getOwnDevices output", xrpc("getOwnDevices", "output", own_devices), None),
        ("an output missing a required field",
         xrpc("getOwnDevices", "output", {k: v for k, v in own_devices.items() if k != "hasMore"}),
         ({"strict", "lexrpc"}, ["hasMore"])),
        ("an unknown field in an output", xrpc("sendMessage", "output", {"entry": application_entry(send_wire, send_signature, tagged=False), "extra": 1}),
         ({"strict"}, ["unknown field 'extra'"])),
        ("a 63-byte signature inside a union array item", xrpc("getEntries", "output", short_signature),
         ({"strict", "lexrpc"}, ["63"])),
        ("unpadded $bytes", xrpc("getEntries", "output", unpadded), ({"strict"}, ["padded base64"])),
        ("a null", xrpc("getOwnDevices", "output", {**own_devices, "nextPageCursor": None}),
         ({"strict", "lexrpc"}, ["null"])),
        ("an integer param given as a string", xrpc("getEntries", "params", {**entries_params, "afterSeq": "0"}),
         ({"strict", "lexrpc"}, ["afterSeq"])),
        ("a float", xrpc("getEntries", "params", {**entries_params, "limit": 10.0}),
         ({"strict", "lexrpc"}, ["limit"])),
        ("uploadBlob input (raw bytes, no JSON)", xrpc("uploadBlob", "input", {}), ({"capture"}, ["no JSON input"])),
        ("an event envelope", message(envelope), None),
        ("a typing event", message(typing), None),
        ("a payload tagged #name only", message(short_payload_tag), ({"strict", "lexrpc"}, ["is not one of"])),
    ]


def main(checker):
    problems = {}  # check name -> what went wrong

    def expect(name, ok, problem):
        problems.setdefault(name, [])
        if not ok:
            problems[name].append(problem)

    # DAG-CBOR map keys: shorter first, then bytewise (RFC 8949 §4.2.3 as DAG-CBOR uses it).
    expect("libipld key order", libipld.encode_dag_cbor({"b": 1, "aa": b"\x01"}).hex() == "a26162016261614101",
           "libipld's map key order is not DAG-CBOR's")
    all_cases = cases()
    for name, line, expected in all_cases:
        reasons = checker.check(json.loads(json.dumps(line)))
        said = "; ".join(reasons) or "no reason"
        if expected is None:
            expect(name, not reasons, f"must pass: {said}")
            continue
        want_labels, words = expected
        got_labels = {r.split(":")[0] for r in reasons}
        expect(name, got_labels == want_labels, f"refused by {sorted(got_labels)}, expected {sorted(want_labels)}: {said}")
        for word in words:
            expect(name, any(word in r for r in reasons), f"no reason mentions {word!r}: {said}")
    # The whole run: every failing line counted, the summary printed, a non-zero result.
    lines = [(n, json.dumps(line)) for n, (_, line, _) in enumerate(all_cases, 1)]
    lines += [(len(lines) + 1, "{not json"), (len(lines) + 2, json.dumps({"check": "other"}))]
    out = io.StringIO()
    failed = run(checker, lines, out)
    must_fail = sum(1 for _, _, expected in all_cases if expected is not None) + 2
    summary = f"chat checks: {len(lines) - must_fail} passed, {must_fail} failed"
    expect("a whole capture", failed == must_fail and summary in out.getvalue(), f"expected {summary!r}:\n{out.getvalue()}")
    expect("an empty capture", run(checker, [], io.StringIO()) != 0, "passed")
    for name, found in problems.items():
        for problem in found:
            print(f"chat checks self-test: {name}: {problem}")
    failed_checks = sum(1 for found in problems.values() if found)
    print(f"chat checks self-test: {len(problems) - failed_checks} passed, {failed_checks} failed")
    return 1 if failed_checks else 0
