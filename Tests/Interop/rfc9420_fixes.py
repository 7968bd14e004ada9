"""Where `rfc9420` 1.3.0 departs from RFC 9420, and how the harness works around it.

The service is never relaxed for these: each fix makes rfc9420 produce or accept what the RFC says,
and everything else (framing, key schedule, transcript hashes, secret tree, Welcome, proposals)
stays rfc9420's own code.

1. UpdatePath leaf (self-update and removal commits, RFC 9420 §7.5, §7.9, §12.4.2). rfc9420 puts the
   committer's old LeafNode into the UpdatePath with only its source and parent_hash changed: the
   same encryption key (§12.4.2 wants a new one), the old signature (LeafNodeTBS of source `commit`
   covers parent_hash, group_id and leaf_index, so it no longer verifies), and the tree it hashes
   for the GroupContext still holds the old leaf. `create_update_path` is replaced by one that makes
   a fresh encryption key pair, signs the new leaf after its parent_hash is known, merges it into
   the tree, and only then derives the GroupContext that path secrets are encrypted under.
2. Filtered direct path (§4.1.2, §7.6, §12.4.2). rfc9420 leaves new joiners out of the resolution
   when it decides which direct-path nodes to filter, so a copath subtree holding only members
   added by the same commit drops its path node. The RFC filters on the tree after the Adds and
   leaves new joiners out only of the encryption targets. `_filtered_direct_path_pairs` is
   replaced with the RFC's rule, for making and for processing commits.
3. external_pub (§12.4.3.2): rfc9420 writes the GroupInfo extension as the bare HPKE key; the
   ExternalPub struct is `opaque external_pub<V>`. The harness hands rfc9420 the key already
   length-prefixed for the duration of a commit or GroupInfo export, so the bytes written are
   right, and restores it after.
4. Welcome parent hashes (§7.9.2, §12.4.3.1). On join rfc9420 also requires every leaf's
   parent_hash to match the current direct path; after a later commit by someone else a leaf's
   parent_hash legitimately names a path that has since been replaced. The RFC requires only that
   each non-blank parent node be parent-hash valid, which rfc9420 checks separately
   (`verify_parent_hash_chains`, left as is). While joining, the per-leaf comparison is skipped.
5. Joining through the `MLSGroup.join_from_welcome` wrapper does not pass the leaf's encryption
   private key, so the member could not decrypt path secrets sent to its leaf: the harness calls
   the protocol-level `from_welcome` with it.
6. Proposals outlive their epoch: rfc9420 keeps the proposals it received after a commit moves the
   group on (RFC 9420 §12.4.2 discards them), so its next commit would carry stale ones. The
   harness empties rfc9420's proposal list and cache after each commit it processes.
7. MLS-Exporter (§8.5) is ExpandWithLabel(DeriveSecret(exporter_secret, Label), "exported",
   Hash(Context), Length); rfc9420 uses Context unhashed. The harness passes Hash(Context) in.
"""
from __future__ import annotations

import contextvars
import dataclasses
import os

from rfc9420.crypto import labels as mls_labels
from rfc9420.crypto.hpke_labels import encrypt_with_label
from rfc9420.codec.tls import write_opaque_varint
from rfc9420.messages.data_structures import GroupContext, Signature, UpdatePath, UpdatePathNode
from rfc9420.messages.key_packages import LeafNodeSource
from rfc9420.protocol.tree import tree_math
from rfc9420.protocol.tree.ratchet_tree import RatchetTree

# The signing key of the member making a commit, for fix 1 (set around create_commit).
committer_signing_key: contextvars.ContextVar[bytes | None] = contextvars.ContextVar("committer", default=None)
# Set while a member joins from a Welcome, for fix 4.
joining: contextvars.ContextVar[bool] = contextvars.ContextVar("joining", default=False)

_original_parent_hash_for_leaf = RatchetTree._compute_parent_hash_for_leaf


def _filtered_direct_path_pairs(self, node_index, excluded_leaf_pubkeys=None):
    """Fix 2: RFC 9420 §4.1.2 on the whole tree; new joiners are left out only when encrypting."""
    pairs = []
    for path_node, copath_child in zip(tree_math.direct_path(node_index, self.n_leaves),
                                       tree_math.copath(node_index, self.n_leaves)):
        if self.resolve(copath_child):
            pairs.append((path_node, copath_child))
    return pairs


def _create_update_path(self, committer_index, new_leaf_node, group_context_bytes, excluded_leaf_pubkeys=None):
    """Fix 1: RFC 9420 §7.5 / §12.4.2 steps for the committer, on rfc9420's tree primitives."""
    signing_key = committer_signing_key.get()
    if signing_key is None:
        raise RuntimeError("rfc9420_fixes: commit made without committer_signing_key set")
    crypto = self._crypto_provider
    leaf_index_node = committer_index * 2
    pairs = self._filtered_direct_path_pairs(leaf_index_node)
    filtered = {node for node, _ in pairs}
    # Blank the direct path, then give each filtered node its key from the path secrets.
    path_secrets: dict[int, bytes] = {}
    secret = self._rand_provider.random_bytes(crypto.kdf_hash_len())
    for node_index in tree_math.direct_path(leaf_index_node, self.n_leaves):
        node = self.get_node(node_index)
        node.unmerged_leaves = []
        node.private_key = node.public_key = None
        if node_index in filtered:
            path_secrets[node_index] = secret
            node.private_key, node.public_key = crypto.derive_key_pair(crypto.derive_secret(secret, b"node"))
            secret = crypto.derive_secret(secret, b"path")
    commit_secret = secret
    self._set_filtered_path_parent_hashes(leaf_index_node, pairs)
    # The new leaf: fresh encryption key, source commit, parent_hash, signed over LeafNodeTBS.
    encryption_private, encryption_public = crypto.generate_key_pair()
    context = GroupContext.deserialize(group_context_bytes)
    leaf = dataclasses.replace(new_leaf_node, encryption_key=encryption_public, leaf_node_source=LeafNodeSource.COMMIT,
                               parent_hash=_original_parent_hash_for_leaf(self, committer_index),
                               lifetime_not_before=0, lifetime_not_after=0, signature=b"")
    signature = crypto.sign_with_label(signing_key, b"LeafNodeTBS", leaf.tbs_serialize(context.group_id, committer_index))
    leaf = dataclasses.replace(leaf, signature=Signature(signature))
    node = self.get_node(leaf_index_node)
    node.leaf_node = leaf
    node.public_key = encryption_public
    node.private_key = encryption_private
    self._recalculate_hashes_from(leaf_index_node)
    # The provisional GroupContext carries the tree hash after the merge (§12.4.2).
    provisional = GroupContext(context.group_id, context.epoch, self.calculate_tree_hash(),
                               context.confirmed_transcript_hash, context.extensions,
                               cipher_suite_id=context.cipher_suite_id).serialize()
    nodes = []
    for node_index, copath_child in pairs:
        ciphertexts = []
        for target in self.resolve(copath_child, excluded_leaf_pubkeys=excluded_leaf_pubkeys):
            kem_output, ciphertext = encrypt_with_label(crypto, recipient_public_key=target.public_key,
                                                        label=mls_labels.HPKE_UPDATE_PATH_NODE, context=provisional,
                                                        aad=b"", plaintext=path_secrets[node_index])
            ciphertexts.append(write_opaque_varint(kem_output) + write_opaque_varint(ciphertext))
        nodes.append(UpdatePathNode(encryption_key=self.get_node(node_index).public_key,
                                    encrypted_path_secrets=ciphertexts))
    return UpdatePath(leaf.serialize(), nodes), commit_secret, path_secrets


def _compute_parent_hash_for_leaf(self, leaf_index):
    """Fix 4: while joining, a leaf's parent_hash is not compared with the current path."""
    if joining.get():
        node = self.get_node(leaf_index * 2)
        if node.leaf_node is not None and node.leaf_node.parent_hash:
            return node.leaf_node.parent_hash
    return _original_parent_hash_for_leaf(self, leaf_index)


# INTEROP_WITHOUT_FIXES=1,2 leaves those fixes out, to watch rfc9420's own behaviour fail the run.
disabled = {int(n) for n in os.environ.get("INTEROP_WITHOUT_FIXES", "").split(",") if n.strip()}
if 1 not in disabled:
    RatchetTree.create_update_path = _create_update_path
if 2 not in disabled:
    RatchetTree._filtered_direct_path_pairs = _filtered_direct_path_pairs
if 4 not in disabled:
    RatchetTree._compute_parent_hash_for_leaf = _compute_parent_hash_for_leaf


def external_pub_prefixed(group):
    """Fix 3: a context manager that makes rfc9420 write `opaque external_pub<V>`."""
    class _Prefixed:
        def __enter__(self):
            self.key = group._external_public_key
            if self.key and 3 not in disabled:
                group._external_public_key = write_opaque_varint(self.key)

        def __exit__(self, *exc):
            group._external_public_key = self.key
    return _Prefixed()
