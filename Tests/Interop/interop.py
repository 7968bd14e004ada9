"""The interop run: our client (the catbird-mls CLI), AWS mls-rs and rfc9420 in the same conversations
on the real server. Every step prints which library did what and the epoch it reached; any
refusal, mismatch or exception fails the run. See README.md beside this file.
"""
from __future__ import annotations

import argparse
import sys
import threading

import rfc9420_fixes  # noqa: F401  (installs the workarounds before any rfc9420 group exists)
import wire
from checks import Run, run_checks
from mlsrs_member import MlsRsMember
from python_member import PythonMember
from rfc9420_member import Rfc9420Member
from swift_member import SwiftMember
from xrpc import XRPCError, b64


def who(member) -> str:
    return f"{member.name} ({member.kind})"


def chat(run: Run, convo: str, members: list, label: str) -> None:
    """Each member sends one line; each then decrypts every other member's line."""
    lines = {m.did: f"{label}: hello from {m.kind} {m.name}" for m in members}
    for member in members:
        member.send(convo, lines[member.did])
    for member in members:
        got = member.read(convo)
        for other in members:
            if other is member:
                continue
            run.expect((other.did, lines[other.did]) in got,
                       f"{who(member)} decrypts {who(other)}'s message ({label})")


def converge(run: Run, convo: str, members: list, api_member: PythonMember, label: str) -> int:
    """Every member at the service's epoch with the same exporter secret."""
    service_epoch = api_member.api.epoch(convo)
    states = {who(m): m.state(convo) for m in members}
    epochs = {name: epoch for name, (epoch, _) in states.items()}
    secrets = {secret.hex() for _, secret in states.values()}
    run.expect(set(epochs.values()) == {service_epoch},
               f"{label}: every member at the service's epoch {service_epoch}: {epochs}")
    run.expect(len(secrets) == 1, f"{label}: one exporter secret for all {len(members)} members: "
                                  + ", ".join(f"{name} {secret.hex()[:16]}" for name, (_, secret) in states.items()))
    return service_epoch


def race(run: Run, convo: str, first: PythonMember, second: PythonMember) -> None:
    """Two members commit in the same epoch at the same time: one wins, the other gets 409 and recovers."""
    first.catch_up(convo)
    second.catch_up(convo)
    epoch = first.epoch()
    assert second.epoch() == epoch
    commits = {first: first.make_self_update(), second: second.make_self_update()}
    outcomes = {}
    barrier = threading.Barrier(2)

    def submit(member):
        barrier.wait()
        outcomes[member] = member.submit(convo, "commitGroupChange", commits[member])

    threads = [threading.Thread(target=submit, args=(m,)) for m in commits]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(o.status for o in outcomes.values())
    run.expect(statuses == [200, 409], f"race at epoch {epoch}: {who(first)} {outcomes[first].status}, "
                                       f"{who(second)} {outcomes[second].status} (one 200, one 409)")
    winner, loser = (first, second) if outcomes[first].status == 200 else (second, first)
    run.expect(outcomes[loser].error in ("CommitConflict", "EpochMismatch"),
               f"the loser {who(loser)} is told {outcomes[loser].error}")
    retry = loser.self_update(convo)
    run.expect(retry.status == 200 and retry.epoch == epoch + 2,
               f"{who(loser)} applies {who(winner)}'s commit and recommits: epoch {retry.epoch}")


def held_race(run: Run, convo: str, late: PythonMember, swift: SwiftMember) -> None:
    """A Python member's commit made at epoch N reaches the service after the CLI's commit for N."""
    late.catch_up(convo)
    epoch = late.epoch()
    held = late.make_self_update()
    swift_epoch = swift.self_update(convo)
    run.expect(swift_epoch == epoch + 1, f"{who(swift)} self-update wins epoch {epoch}: epoch {swift_epoch}")
    outcome = late.submit(convo, "commitGroupChange", held)
    run.expect(outcome.status == 409, f"{who(late)}'s commit for epoch {epoch} arrives late: {outcome.status} {outcome.error}")
    retry = late.self_update(convo)
    run.expect(retry.status == 200 and retry.epoch == epoch + 2,
               f"{who(late)} catches up and recommits: epoch {retry.epoch}")


def conversation_by_swift(run: Run, cli: str, work: str, server: str, plc: str) -> None:
    alice = SwiftMember("alice", cli, work, server, plc)
    bob = MlsRsMember("bob", server, plc)
    carol = Rfc9420Member("carol", server, plc)
    dave = SwiftMember("dave", cli, work, server, plc)
    for member in (bob, carol, dave):
        member.publish_key_packages(3)
    run.ok("KeyPackages published by mls-rs (bob), rfc9420 (carol) and catbird-mls (dave) are accepted")

    convo = alice.create([bob.did], "interop A")
    run.ok(f"{who(alice)} creates conversation A with {who(bob)}: epoch 1")
    run.expect(bob.join(convo) == 1, f"{who(bob)} joins from catbird-mls's Welcome: epoch {bob.epoch()}")

    added = bob.invite(convo, carol.did)
    run.expect(added.status == 200, f"{who(bob)} adds {who(carol)} (mls-rs Add commit): epoch {added.epoch}")
    run.expect(carol.join(convo) == added.epoch, f"{who(carol)} joins from mls-rs's Welcome: epoch {carol.epoch()}")

    added = carol.invite(convo, dave.did)
    run.expect(added.status == 200, f"{who(carol)} adds {who(dave)} (rfc9420 Add commit): epoch {added.epoch}")
    run.expect(dave.join(convo) == added.epoch, f"{who(dave)} joins from rfc9420's Welcome: epoch {added.epoch}")

    members = [alice, bob, carol, dave]
    chat(run, convo, members, "A1")
    converge(run, convo, members, bob, "A after joins")

    for member in members:
        if isinstance(member, SwiftMember):
            epoch = member.self_update(convo)
        else:
            outcome = member.self_update(convo)
            assert outcome.status == 200, outcome
            epoch = outcome.epoch
        run.ok(f"{who(member)} self-update (empty commit with UpdatePath) accepted: epoch {epoch}")
    chat(run, convo, members, "A2")
    converge(run, convo, members, bob, "A after self-updates")

    race(run, convo, bob, carol)
    held_race(run, convo, carol, alice)
    held_race(run, convo, bob, dave)
    chat(run, convo, members, "A3")
    converge(run, convo, members, carol, "A after races")

    dave.leave(convo)
    run.ok(f"{who(dave)} leaves (self-Remove proposal held by the service)")
    removed = bob.commit_pending(convo)
    run.expect(removed.status == 200, f"{who(bob)} commits {who(dave)}'s removal (mls-rs, proposal by reference): epoch {removed.epoch}")
    members = [alice, bob, carol]
    outcome = carol.self_update(convo)
    run.expect(outcome.status == 200, f"{who(carol)} self-update after the removal: epoch {outcome.epoch}")
    frank = Rfc9420Member("frank", server, plc)
    frank.publish_key_packages(1)
    epoch = alice.invite(convo, [frank.did])
    run.ok(f"{who(alice)} adds {who(frank)} (catbird-mls Add commit with UpdatePath): epoch {epoch}")
    run.expect(frank.join(convo) == epoch, f"{who(frank)} joins from catbird-mls's Welcome into a tree of many path commits: epoch {epoch}")
    members.append(frank)
    chat(run, convo, members, "A4")
    final = converge(run, convo, members, bob, "A final")
    run.ok(f"conversation A ends at epoch {final} with catbird-mls, mls-rs and rfc9420 members")


def conversation_by_rfc9420(run: Run, cli: str, work: str, server: str, plc: str) -> None:
    carol = Rfc9420Member("carol2", server, plc)
    alice = SwiftMember("alice2", cli, work, server, plc)
    bob = MlsRsMember("bob2", server, plc)
    alice.publish_key_packages(2)
    bob.publish_key_packages(2)

    carol.create_group()
    first = carol.make_add(*(carol.api.key_package(did) for did in (alice.did, bob.did)))
    carol.apply_pending()  # createConvo wants the new epoch's GroupInfo: made before the service answers
    convo = carol.group.get_group_id().hex()
    group_info = carol.group_info()
    external_pub = wire.group_info_extensions(group_info).get(wire.EXTERNAL_PUB)
    run.expect(external_pub is not None and len(wire.read_opaque(external_pub, 0)[0]) == 32
               and wire.read_opaque(external_pub, 0)[1] == len(external_pub),
               f"{who(carol)}'s GroupInfo carries external_pub as opaque<V> with a 32-byte key")
    view = carol.api.procedure("createConvo", {
        "groupId": convo, "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        "groupInfo": b64(group_info), "commit": b64(first.commit), "welcomeMessage": b64(first.welcome),
        "metadata": {"name": "interop B"}})
    run.expect(view["epoch"] == carol.epoch(), f"{who(carol)} creates conversation B with {who(alice)} and {who(bob)} "
                                              f"(rfc9420 commit and GroupInfo): epoch {view['epoch']}")
    run.expect(alice.join(convo) == carol.epoch(), f"{who(alice)} joins from rfc9420's Welcome: epoch {carol.epoch()}")
    run.expect(bob.join(convo) == carol.epoch(), f"{who(bob)} joins from rfc9420's Welcome: epoch {bob.epoch()}")
    members = [carol, alice, bob]
    chat(run, convo, members, "B1")
    converge(run, convo, members, carol, "B after joins")

    carol.catch_up(convo)
    removal = carol.make_remove(bob.did)
    outcome = carol.submit(convo, "removeMember", removal, targetDid=bob.did, idempotencyKey=f"remove-{bob.did}")
    run.expect(outcome.status == 200, f"{who(carol)} (admin) removes {who(bob)} (rfc9420 Remove commit with UpdatePath): epoch {outcome.epoch}")
    try:
        bob.catch_up(convo)
        raise AssertionError("a removed member could still read")
    except XRPCError as error:
        run.expect(error.status == 403 or error.error == "NotMember", f"{who(bob)} is no longer a member: {error.error}")
    members = [carol, alice]
    erin = MlsRsMember("erin", server, plc)
    erin.publish_key_packages(1)
    epoch = alice.invite(convo, [erin.did])
    run.ok(f"{who(alice)} adds {who(erin)} into the leaf bob2 left (catbird-mls Add commit with UpdatePath whose "
           f"copath holds only the new member): epoch {epoch}")
    run.expect(erin.join(convo) == epoch, f"{who(erin)} joins from catbird-mls's Welcome: epoch {epoch}")
    members.append(erin)
    chat(run, convo, members, "B2")
    final = converge(run, convo, members, carol, "B final")
    run.ok(f"conversation B ends at epoch {final}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--plc", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()

    def conversations(run: Run) -> None:
        conversation_by_swift(run, args.cli, args.work, args.server, args.plc)
        conversation_by_rfc9420(run, args.cli, args.work, args.server, args.plc)
    return run_checks("interop", conversations)


if __name__ == "__main__":
    sys.exit(main())
