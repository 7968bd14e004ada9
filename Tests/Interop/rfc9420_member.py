"""A user on the pure-Python `rfc9420` 1.3.0, through its protocol-level group (`ProtocolMLSGroup`),
with the corrections of rfc9420_fixes.py. The harness builds this user's KeyPackages itself
(rfc9420 has no KeyPackage generator) from rfc9420's structures and crypto provider.
"""
from __future__ import annotations

import dataclasses
import os
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rfc9420 import DefaultCryptoProvider, ProtocolMLSGroup
from rfc9420.extensions.extensions import build_capabilities_data
from rfc9420.messages.data_structures import AddProposal, Credential, RemoveProposal, Sender, SenderType, Signature
from rfc9420.messages.key_packages import KeyPackage, LeafNode, LeafNodeSource
from rfc9420.messages.messages import AuthenticatedContent, MLSCiphertext, MLSMessage, MLSPlaintext, WireFormat
from rfc9420.messages.refs import make_key_package_ref

import rfc9420_fixes as fixes
import wire
from python_member import EXPORT_LABEL, Commit, PythonMember

SUITE_1 = 0x0001


class Rfc9420Member(PythonMember):
    kind = "rfc9420"

    def __init__(self, name: str, server: str, plc: str, alg: str = "ES256"):
        super().__init__(name, server, plc, alg)
        self.crypto = DefaultCryptoProvider(SUITE_1)
        self.signing_key = Ed25519PrivateKey.generate().private_bytes_raw()
        self.signature_key = self.crypto.signature_public_from_private(self.signing_key)
        self.credential = Credential(identity=self.did.encode(), public_key=self.signature_key)
        self.key_packages: dict[bytes, tuple[KeyPackage, bytes, bytes]] = {}
        self.group: ProtocolMLSGroup | None = None
        self.pending = None
        self.proposals_before: list = []
        self.active = True

    def new_key_package(self) -> bytes:
        init_private, init_public = self.crypto.generate_key_pair()
        leaf_private, leaf_public = self.crypto.generate_key_pair()
        now = int(time.time())
        leaf = LeafNode(encryption_key=leaf_public, signature_key=self.signature_key, credential=self.credential,
                        capabilities=build_capabilities_data([SUITE_1], []), leaf_node_source=LeafNodeSource.KEY_PACKAGE,
                        lifetime_not_before=now - 3600, lifetime_not_after=now + 30 * 86400, extensions=[])
        leaf = dataclasses.replace(leaf, signature=Signature(
            self.crypto.sign_with_label(self.signing_key, b"LeafNodeTBS", leaf.tbs_serialize())))
        package = KeyPackage(init_key=init_public, leaf_node=leaf, extensions=[])
        package = dataclasses.replace(package, signature=Signature(
            self.crypto.sign_with_label(self.signing_key, b"KeyPackageTBS", package.tbs_serialize())))
        package.verify(self.crypto)
        ref = make_key_package_ref(self.crypto, package.serialize())
        self.key_packages[ref] = (package, init_private, leaf_private)
        return MLSMessage.from_key_package(package).serialize()

    def create_group(self) -> None:
        """A new group with this user alone, at epoch 0 (from one of its own KeyPackages)."""
        self.new_key_package()
        package, _, leaf_private = self.key_packages.popitem()[1]
        self.group = ProtocolMLSGroup.create(os.urandom(16), package, self.crypto)
        self.group._ratchet_tree.get_node(0).private_key = leaf_private

    def group_info(self) -> bytes:
        with fixes.external_pub_prefixed(self.group):
            return MLSMessage(1, WireFormat.GROUP_INFO, self.group.export_group_info(self.signing_key)).serialize()

    def join_welcome(self, welcome: bytes) -> None:
        decoded = MLSMessage.deserialize(welcome).get_parsed_content()
        mine = [s.new_member for s in decoded.secrets if s.new_member in self.key_packages]
        if not mine:
            raise AssertionError("rfc9420: the Welcome names none of our KeyPackages")
        package, init_private, leaf_private = self.key_packages.pop(mine[0])
        token = fixes.joining.set(True)
        try:
            # Fix 5: the protocol-level join, given the leaf's private key.
            self.group = ProtocolMLSGroup.from_welcome(
                decoded, init_private, self.crypto, key_package=package,
                encryption_private_key=None if 5 in fixes.disabled else leaf_private)
        finally:
            fixes.joining.reset(token)

    def encrypt(self, text: str) -> bytes:
        return MLSMessage.from_private_message(self.group.protect(text.encode(), signing_key=self.signing_key)).serialize()

    def member_did(self, leaf: int) -> str:
        return dict(self.group.get_member_identities())[leaf].decode()

    def process(self, message: bytes, header: wire.Header) -> str | None:
        body = MLSMessage.deserialize(message).content
        if header.wire_format == wire.PRIVATE_MESSAGE:
            sender, data = self.group.unprotect(MLSCiphertext.deserialize(body))
            return data.decode(), self.member_did(sender)
        plaintext = MLSPlaintext(AuthenticatedContent.deserialize(body))
        if header.content_type == wire.PROPOSAL:
            self.group.process_proposal(plaintext, Sender(header.sender_leaf, SenderType.MEMBER))
            return None
        if header.sender_type == wire.SENDER_NEW_MEMBER_COMMIT:
            self.group.process_external_commit(plaintext)
        else:
            self.group.process_commit(plaintext, header.sender_leaf)
        self.forget_proposals()
        if self.group._own_leaf_index < 0 or self.group._ratchet_tree.get_node(self.group._own_leaf_index * 2).leaf_node is None:
            self.active = False
        return None

    def forget_proposals(self) -> None:
        """Proposals do not outlive their epoch (RFC 9420 §12.4.2); rfc9420 keeps them (fix 6)."""
        if 6 in fixes.disabled:
            return
        self.group._pending_proposals = []
        self.group._proposal_cache = {}

    def _commit(self, inline: list) -> Commit:
        self.proposals_before = list(self.group._pending_proposals)
        self.group._pending_proposals.extend(inline)  # by value: no one else saw them as proposals
        signer = fixes.committer_signing_key.set(self.signing_key)
        try:
            with fixes.external_pub_prefixed(self.group):
                self.pending = self.group.create_commit(self.signing_key)
        except Exception:
            self.group._pending_proposals = self.proposals_before
            raise
        finally:
            fixes.committer_signing_key.reset(signer)
        welcome = MLSMessage.from_welcome(self.pending.welcomes[0]).serialize() if self.pending.welcomes else None
        return Commit(MLSMessage.from_public_message(self.pending.commit_message.auth_content).serialize(), welcome)

    def make_self_update(self) -> Commit:
        return self._commit([])

    def make_add(self, *key_packages: bytes) -> Commit:
        adds = []
        for key_package in key_packages:
            package = MLSMessage.deserialize(key_package).get_parsed_content()
            package.verify(self.crypto, group_context=self.group._group_context)
            adds.append(AddProposal(package.serialize()))
        return self._commit(adds)

    def make_remove(self, did: str) -> Commit:
        leaves = [leaf for leaf, identity in self.group.get_member_identities() if identity == did.encode()]
        return self._commit([RemoveProposal(leaf) for leaf in leaves])

    def make_commit_pending(self) -> Commit:
        return self._commit([])

    def apply_pending(self) -> None:
        self.group.apply_own_commit(self.pending)
        self.pending = None

    def discard_pending(self) -> None:
        # rfc9420 has no call for this: back to the state before create_commit.
        self.group._pending_proposals = self.proposals_before
        self.group._commit_pending = False
        self.group._state = type(self.group._state).OPERATIONAL
        self.pending = None

    def epoch(self) -> int:
        return self.group.get_epoch() if self.group else -1

    def exporter(self) -> bytes:
        # Fix 7: RFC 9420 §8.5 expands with Hash(context); rfc9420 uses the context as is.
        return self.group.export_secret(EXPORT_LABEL, b"" if 7 in fixes.disabled else self.crypto.hash(b""), 32)
