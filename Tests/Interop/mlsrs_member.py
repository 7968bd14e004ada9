"""A user on AWS mls-rs, through its UniFFI Python bindings (agentvault-mls-rs-uniffi).

The bindings expose a small surface: suite 1 only, KeyPackages, join, add/remove/empty commits,
application messages, MLS-Exporter. They expose no GroupInfo, so an mls-rs user cannot create a
conversation on the service (createConvo needs the creator's GroupInfo), and no epoch getter: the
epoch is read from the header of a PrivateMessage mls-rs encrypts (`probe_epoch`), and between
probes counted from the commits it applies.
"""
from __future__ import annotations

import mls_rs_uniffi as mls

import wire
from python_member import EXPORT_LABEL, Commit, PythonMember


class MlsRsMember(PythonMember):
    kind = "mls-rs"

    def __init__(self, name: str, server: str, plc: str, alg: str = "ES256K"):
        super().__init__(name, server, plc, alg)
        keypair = mls.generate_signature_keypair(mls.CipherSuite.CURVE25519_AES128)
        # BasicCredential identity = the user's DID (the service checks it against the token's iss).
        self.client = mls.Client(self.did.encode(), keypair, mls.client_config_default())
        self.group: mls.Group | None = None
        self.pending: mls.CommitOutput | None = None
        self._epoch = -1
        self.active = True

    def new_key_package(self) -> bytes:
        return self.client.generate_key_package_message().to_bytes()

    def probe_epoch(self) -> int:
        """The epoch mls-rs itself writes into a PrivateMessage (encrypted, never sent)."""
        return wire.header(self.group.encrypt_application_message(b"epoch probe").to_bytes()).epoch

    def join_welcome(self, welcome: bytes) -> None:
        self.group = self.client.join_group(None, mls.Message.from_bytes(welcome)).group
        self._epoch = self.probe_epoch()

    def encrypt(self, text: str) -> bytes:
        return self.group.encrypt_application_message(text.encode()).to_bytes()

    def process(self, message: bytes, header: wire.Header) -> str | None:
        received = self.group.process_incoming_message(mls.Message.from_bytes(message))
        if received.is_application_message():
            return received.data.decode(), None  # the bindings do not show the sender's credential
        if received.is_commit():
            self._epoch += 1
            if received.effect.is_removed():
                self.active = False
        return None

    def make_self_update(self) -> Commit:
        self.pending = self.group.commit()  # no proposals: mls-rs includes an UpdatePath
        return Commit(self.pending.commit_message.to_bytes())

    def make_add(self, key_package: bytes) -> Commit:
        self.pending = self.group.add_members([mls.Message.from_bytes(key_package)])
        return Commit(self.pending.commit_message.to_bytes(), self.pending.welcome_message.to_bytes())

    def make_commit_pending(self) -> Commit:
        self.pending = self.group.commit()  # the proposals received, by reference
        return Commit(self.pending.commit_message.to_bytes())

    def apply_pending(self) -> None:
        # mls-rs recognises its own pending commit and merges it.
        self.group.process_incoming_message(self.pending.commit_message)
        self.pending = None
        self._epoch += 1

    def discard_pending(self) -> None:
        # mls-rs drops its pending commit when it processes the commit that won the epoch.
        self.pending = None

    def epoch(self) -> int:
        return self._epoch

    def exporter(self) -> bytes:
        probed = self.probe_epoch()
        if probed != self._epoch:
            raise AssertionError(f"mls-rs is at epoch {probed}, the harness counted {self._epoch}")
        return self.group.export_secret(EXPORT_LABEL, b"", 32)
