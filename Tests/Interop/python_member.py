"""What the two Python users share: an atproto identity, the XRPC calls around each MLS operation,
reading the conversation in seq order, and committing with the service deciding each epoch.

A commit is applied locally only after the service answered 200; on 409 (another commit won the
epoch) it is dropped, the winner is read and applied, and the caller may commit again.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass

import wire
from atproto import AtprotoIdentity
from xrpc import XRPCClient, XRPCError, b64, unb64

EXPORT_LABEL = b"interop"


@dataclass
class Commit:
    """What an MLS library hands back for one commit, in wire bytes."""
    commit: bytes
    welcome: bytes | None = None
    group_info: bytes | None = None


@dataclass
class Outcome:
    status: int
    epoch: int | None = None
    error: str | None = None


class PythonMember:
    kind = "?"

    def __init__(self, name: str, server: str, plc: str, alg: str):
        self.name = name
        self.identity = AtprotoIdentity(alg)
        self.identity.register(plc)
        self.did = self.identity.did
        self.api = XRPCClient(server, self.identity)
        self.last_seq: dict[str, int] = {}
        self.sent: set[str] = set()
        # Decrypted lines not yet handed out by read() (sending catches up first, as the CLI does).
        self.unread: dict[str, list[tuple[str, str]]] = {}

    # Implemented per library.
    def new_key_package(self) -> bytes: raise NotImplementedError
    def join_welcome(self, welcome: bytes) -> None: raise NotImplementedError
    def encrypt(self, text: str) -> bytes: raise NotImplementedError
    def process(self, message: bytes, header: wire.Header) -> tuple[str, str | None] | None:
        """Applies one message; for an application message, (text, the sender's DID per MLS or None)."""
        raise NotImplementedError
    def make_self_update(self) -> Commit: raise NotImplementedError
    def make_add(self, key_package: bytes) -> Commit: raise NotImplementedError
    def make_commit_pending(self) -> Commit: raise NotImplementedError
    def apply_pending(self) -> None: raise NotImplementedError
    def discard_pending(self) -> None: raise NotImplementedError
    def epoch(self) -> int: raise NotImplementedError
    def exporter(self) -> bytes: raise NotImplementedError

    # The user's actions.

    def publish_key_packages(self, count: int) -> None:
        output = self.api.publish_key_packages([self.new_key_package() for _ in range(count)])
        if output.get("succeeded") != count:
            raise AssertionError(f"{self.kind}: the service refused KeyPackages: {output}")

    def join(self, convo: str) -> int:
        self.join_welcome(self.api.welcome(convo))
        self.api.confirm_welcome(convo)
        # Everything up to the commit that added us belongs to earlier epochs: skip it.
        self.last_seq[convo] = 0
        self.catch_up(convo)
        return self.epoch()

    def send(self, convo: str, text: str) -> None:
        self.catch_up(convo)
        message = self.encrypt(text)
        msg_id = str(uuid.uuid4())
        self.sent.add(msg_id)
        output = self.api.send(convo, msg_id, message, wire.header(message).epoch)
        if output["epoch"] != self.epoch():
            raise AssertionError(f"{self.kind}: sent at epoch {self.epoch()}, the service stored {output['epoch']}")

    def read(self, convo: str) -> list[tuple[str, str]]:
        """Applies commits and proposals, decrypts application messages, in seq order; returns the
        (sender DID, text) lines not returned before."""
        self.catch_up(convo)
        return self.unread.pop(convo, [])

    def catch_up(self, convo: str) -> None:
        texts = self.unread.setdefault(convo, [])
        for view in self.api.messages(convo, self.last_seq.get(convo, 0)):
            self.last_seq[convo] = view["seq"]
            if view["id"] in self.sent or "ciphertext" not in view:
                continue
            message = unb64(view["ciphertext"])
            header = wire.header(message)
            if header.epoch < self.epoch():
                continue  # our own commit, or history from before we joined
            if header.epoch > self.epoch():
                raise AssertionError(f"{self.kind}: message {view['seq']} is from epoch {header.epoch}, we are at {self.epoch()}")
            if view["sender"] == self.did and header.content_type == wire.APPLICATION:
                continue  # our own message (a sender cannot decrypt what it sent)
            decrypted = self.process(message, header)
            if decrypted is not None:
                text, mls_sender = decrypted
                if mls_sender is not None and mls_sender != view["sender"]:
                    raise AssertionError(f"{self.kind}: message {view['seq']} is signed by {mls_sender}, stored as {view['sender']}'s")
                texts.append((view["sender"], text))

    def submit(self, convo: str, method: str, commit: Commit, **fields) -> Outcome:
        """Sends a commit; applies it on 200, drops it on 409."""
        body = {"convoId": convo, "commit": b64(commit.commit), **fields}
        if commit.group_info is not None:
            body["groupInfo"] = b64(commit.group_info)
        if commit.welcome is not None and method in ("addMembers", "commitGroupChange"):
            body["welcomeMessage"] = b64(commit.welcome)
        try:
            output = self.api.procedure(method, body)
        except XRPCError as error:
            if error.status == 409:
                self.discard_pending()
                return Outcome(409, error=error.error)
            raise
        self.apply_pending()
        epoch = output.get("newEpoch", output.get("epoch"))
        if epoch != self.epoch():
            raise AssertionError(f"{self.kind}: the service says epoch {epoch} after our commit, we are at {self.epoch()}")
        return Outcome(200, epoch)

    def self_update(self, convo: str) -> Outcome:
        self.catch_up(convo)
        return self.submit(convo, "commitGroupChange", self.make_self_update())

    def invite(self, convo: str, did: str) -> Outcome:
        self.catch_up(convo)
        key_package = self.api.key_package(did)
        return self.submit(convo, "addMembers", self.make_add(key_package))

    def commit_pending(self, convo: str) -> Outcome:
        """Commits the proposals read so far (e.g. a member's self-Remove after leaveConvo)."""
        self.catch_up(convo)
        return self.submit(convo, "commitGroupChange", self.make_commit_pending())

    def state(self, convo: str) -> tuple[int, bytes]:
        self.catch_up(convo)
        return self.epoch(), self.exporter()
