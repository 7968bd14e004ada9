"""The Relay protocol over MQTT with clients that are not ours, on the real server: Eclipse Paho
(paho-mqtt) and the mosquitto command line clients carry the bytes, rfc9420 and AWS mls-rs make
and read them. A three-member group is created and used over MQTT, beside XRPC; a non-member, an
invalid commit, a removed member and a Clean Start = 0 reconnect are checked. Every step prints one
`ok:` line; any refusal or mismatch fails the run. See README.md beside this file.
"""
from __future__ import annotations

import argparse
import hashlib
import socket
import sys
import time

import rfc9420_fixes  # noqa: F401  (installs the workarounds before any rfc9420 group exists)
import wire
from checks import Run, run_checks
from mlsrs_member import MlsRsMember
from mqtt_clients import CONNECT_NSID, SERVICE_DID, Mosquitto, Paho, cbor_byte_strings, cbor_decode_strings, client_id
from rfc9420_member import Rfc9420Member

SUCCESS, UNSPECIFIED, NOT_AUTHORIZED, BAD_CREDENTIALS, PAYLOAD_INVALID = 0x00, 0x80, 0x87, 0x86, 0x99


def msg_id(payload: bytes) -> str:
    """The msgId the service gives an MQTT publish: the SHA-256 of its bytes."""
    return hashlib.sha256(payload).hexdigest()


def decrypt(member, payload: bytes) -> str | None:
    """Applies one group message; the text of an application message, else None."""
    result = member.process(payload, wire.header(payload))
    return result[0] if result else None


def texts(member, payloads: list[bytes]) -> list[str]:
    """The texts of `payloads` the member decrypts; its own application messages are skipped (the
    subscription has no No Local: mosquitto_sub's publisher is another client)."""
    own = getattr(member, "own_payloads", set())
    return [text for text in (decrypt(member, payload) for payload in payloads if payload not in own) if text is not None]


def raw_bytes_before_connect(host: str, port: int) -> bytes:
    """A PINGREQ before CONNECT: the server must close without a CONNACK [MQTT-3.1.0-1]."""
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"\xc0\x00")
        received = b""
        while chunk := sock.recv(64):
            received += chunk
        return received


def run_all(run: Run, server: str, plc: str, host: str, port: int) -> None:
    alice = Rfc9420Member("alice", server, plc)    # paho for MQTT, and XRPC to read
    bob = MlsRsMember("bob", server, plc)          # paho
    carol = Rfc9420Member("carol", server, plc)    # the mosquitto command line clients

    # CONNECT: the DID as User Name, a service-auth token for mqttConnect as Password.
    a = Paho(alice.identity, host, port)
    run.expect(a.connack_code == SUCCESS, f"paho connects as {alice.did} with a token for {CONNECT_NSID}")
    bad = Paho(alice.identity, host, port, password="not a token")
    run.expect(bad.connack_code == BAD_CREDENTIALS, f"a Password that is no token: CONNACK {bad.connack_code:#x} (0x86)")
    other = Paho(alice.identity, host, port, password=alice.identity.token(SERVICE_DID, "blue.catbird.mls.getConvos"))
    run.expect(other.connack_code == NOT_AUTHORIZED, f"a valid token for another method: CONNACK {other.connack_code:#x} (0x87)")
    b = Paho(bob.identity, host, port, session_expiry=300)
    c = Mosquitto(carol.identity, host, port)
    run.expect(raw_bytes_before_connect(host, port) == b"", "a packet before CONNECT: closed, nothing answered")

    # KeyPackages: a CBOR array of KeyPackage MLSMessages on relay/k/{client_id}.
    code, _ = b.publish(f"relay/k/{b.cid}", cbor_byte_strings([bob.new_key_package() for _ in range(2)]))
    run.expect(code == SUCCESS, "paho publishes mls-rs KeyPackages on relay/k (PUBACK 0x00)")
    published = c.publish(f"relay/k/{c.cid}", cbor_byte_strings([carol.new_key_package() for _ in range(2)]))
    run.expect(published.returncode == 0 and "fail" not in published.stderr.lower() + published.stdout.lower(),
               f"mosquitto_pub publishes rfc9420 KeyPackages on relay/k: {published.stderr.strip() or 'accepted'}")
    bundles = {}
    for cid in (b.cid, c.cid):
        run.expect(a.subscribe(f"relay/k/{cid}") == 1, f"subscribe relay/k/{cid[:8]}…: granted QoS 1")
        message = a.next(f"relay/k/{cid}")
        bundles[cid] = cbor_decode_strings(message.payload)
        run.expect(message.retain and len(bundles[cid]) == 1,
                   f"the retained value is one of the client's 2 unconsumed KeyPackages (one per cipher suite, as getKeyPackages)")
    run.expect(b.subscribe(f"relay/w/{b.cid}") == 1, "bob subscribes to his Welcome topic")

    # Creation in Relay's order: Welcomes, GroupInfo, commit.
    alice.create_group()
    first = alice.make_add(bundles[b.cid][0], bundles[c.cid][0])
    alice.apply_pending()
    convo = alice.group.get_group_id().hex()
    for cid in (b.cid, c.cid):
        run.expect(a.publish(f"relay/w/{cid}", first.welcome)[0] == SUCCESS, f"Welcome for {cid[:8]}… held by the service")
    run.expect(a.publish(f"relay/g/{convo}/i", alice.group_info())[0] == SUCCESS, "the epoch-1 GroupInfo published on /i")
    code, reason = a.publish(f"relay/g/{convo}/m", first.commit)
    run.expect(code == SUCCESS, f"the initial commit on /m creates the conversation with bob and carol (createConvo's rules): {reason}")
    alice.sent.add(msg_id(first.commit))
    alice.last_seq[convo] = 0
    run.expect(alice.api.epoch(convo) == 1, "the service is at epoch 1")

    welcome = b.next(f"relay/w/{b.cid}")
    run.expect(welcome is not None, "the accepted commit releases bob's Welcome to paho")
    bob.join_welcome(welcome.payload)
    run.expect(b.subscribe(f"relay/g/{convo}/m", no_local=True) == 1, "bob (member) subscribes to /m")
    payloads, _ = c.subscribe(f"relay/w/{c.cid}", count=1)
    run.expect(len(payloads) == 1, "mosquitto_sub receives carol's Welcome")
    carol.join_welcome(payloads[0])
    # Carol's persistent Session (Clean Start = 0, expiry 300 s) with its /m subscription.
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=3, persistent=True)
    run.expect(payloads == [], "carol's mosquitto_sub keeps a Session subscribed to /m")

    # Chat: alice over MQTT, bob over paho, carol with mosquitto_pub.
    line = alice.encrypt("hello from alice (paho)")
    alice.sent.add(msg_id(line))
    run.expect(a.publish(f"relay/g/{convo}/m", line)[0] == SUCCESS, "alice's message accepted")
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == "hello from alice (paho)", "mls-rs (paho) decrypts alice's message")
    run.expect(b.publish(f"relay/g/{convo}/m", bob.encrypt("hi from bob (paho)"))[0] == SUCCESS, "bob's message accepted")
    # Carol's publisher is a second client of hers: a Clean Start with her subscriber's client_id would end its Session.
    carol_publisher = client_id()
    carol_line = carol.encrypt("hey from carol (mosquitto)")
    carol.own_payloads = {carol_line}
    published = c.publish(f"relay/g/{convo}/m", carol_line, cid=carol_publisher)
    run.expect(published.returncode == 0, "carol's message published with mosquitto_pub")
    # Each mosquitto_sub run takes what arrives within a few seconds (-W), and acknowledges it all.
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=3, persistent=True)
    run.expect(texts(carol, payloads) == ["hello from alice (paho)", "hi from bob (paho)"],
               "rfc9420 (mosquitto_sub, resumed Session) decrypts alice's and bob's messages, in order")
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == "hey from carol (mosquitto)", "mls-rs decrypts carol's message")
    got = alice.read(convo)
    run.expect([text for _, text in got] == ["hi from bob (paho)", "hey from carol (mosquitto)"],
               "MQTT → XRPC: alice reads bob's and carol's MQTT messages with getMessages")

    # XRPC → MQTT.
    alice.send(convo, "over xrpc")
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == "over xrpc", "XRPC → MQTT: bob (paho) hears alice's sendMessage")
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=3, persistent=True)
    run.expect(texts(carol, payloads) == ["over xrpc"], "XRPC → MQTT: carol (mosquitto_sub) hears it too")

    # A non-member.
    dave = Rfc9420Member("dave", server, plc)
    d = Paho(dave.identity, host, port)
    run.expect(d.subscribe(f"relay/g/{convo}/m") == NOT_AUTHORIZED, "a non-member's SUBSCRIBE to /m: SUBACK 0x87")
    code, reason = d.publish(f"relay/g/{convo}/m", line)
    run.expect(code == NOT_AUTHORIZED, f"a non-member's PUBLISH to /m: PUBACK 0x87 ({reason})")
    code, reason = d.publish(f"relay/g/{convo}/m", b"not an MLSMessage")
    run.expect(code == PAYLOAD_INVALID, f"garbage on /m: PUBACK 0x99 ({reason})")

    # An invalid commit is refused with its reason; the group goes on. The byte flipped is in the
    # signature (suite 1: ... signature<64> confirmation_tag<32> optional membership_tag<32>): the
    # tags need the group's secrets, which the service never has (docs/validation.md).
    forged = bytearray(alice.make_self_update().commit)
    forged[-100] ^= 0x01
    code, reason = a.publish(f"relay/g/{convo}/m", bytes(forged))
    alice.discard_pending()
    run.expect(code == UNSPECIFIED and (reason or "").startswith("InvalidCommit"),
               f"a commit with a broken signature: PUBACK 0x80, {reason!r}")
    alice.send(convo, "after the refusal")
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == "after the refusal", "the group goes on: bob decrypts")
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=3, persistent=True)
    run.expect(texts(carol, payloads) == ["after the refusal"], "the group goes on: carol decrypts")
    run.expect(alice.api.epoch(convo) == 1, "still epoch 1: nothing was stored")

    # Clean Start = 0: carol's Session got exactly what she missed while offline.
    missed = ["missed 1", "missed 2", "missed 3"]
    for text in missed:
        alice.send(convo, text)
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=3, persistent=True)
    run.expect(payloads and texts(carol, payloads) == missed and len(payloads) == 3,
               "Clean Start = 0: mosquitto_sub gets exactly the 3 messages sent while it was away")
    payloads, _ = c.subscribe(f"relay/g/{convo}/m", wait=2, persistent=True)
    run.expect(payloads == [], "and nothing else: none of them twice")
    for text in missed:
        run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == text, f"bob (paho, online) got {text!r} once")

    # Removal: carol's subscription ends at the commit that removes her.
    watcher = c.start_subscriber(f"relay/g/{convo}/m", wait=6, persistent=True)
    time.sleep(1)
    alice.catch_up(convo)
    removal = alice.make_remove(carol.did)
    code, reason = a.publish(f"relay/g/{convo}/m", removal.commit)
    run.expect(code == SUCCESS, f"alice removes carol with a commit on /m: {reason}")
    alice.sent.add(msg_id(removal.commit))
    alice.apply_pending()
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) is None, "bob applies the removal")
    alice.send(convo, "without carol")
    run.expect(decrypt(bob, b.next(f"relay/g/{convo}/m").payload) == "without carol", "bob decrypts the next message")
    out, _ = watcher.communicate(timeout=30)
    seen = [bytes.fromhex(line) for line in out.split()]
    run.expect(seen == [removal.commit], "carol's mosquitto_sub received the removing commit, then nothing more")
    payloads, result = c.subscribe(f"relay/g/{convo}/m", wait=2)
    run.expect(payloads == [] and "denied" in (result.stdout + result.stderr).lower(),
               f"carol's new SUBSCRIBE is refused: {(result.stderr or result.stdout).strip()}")
    published = c.publish(f"relay/g/{convo}/m", carol.encrypt("still here?"), cid=carol_publisher)
    run.expect(published.returncode != 0 or "not authorized" in (published.stdout + published.stderr).lower(),
               f"and so is her PUBLISH: {(published.stderr or published.stdout).strip()}")

    run.expect(alice.api.epoch(convo) == 2, "the service is at epoch 2")
    for client in (a, b, d, bad, other):
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--plc", required=True)
    parser.add_argument("--mqtt-port", type=int, required=True)
    parser.add_argument("--mqtt-host", default="127.0.0.1")
    args = parser.parse_args()
    return run_checks("mqtt interop", lambda run: run_all(run, args.server, args.plc, args.mqtt_host, args.mqtt_port))


if __name__ == "__main__":
    sys.exit(main())
