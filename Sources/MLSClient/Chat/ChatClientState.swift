import Basics
import ChatProtocol
import Foundation
import MLS

/// What a `ChatClient` holds in memory, kept between runs (the CLI saves it after every command):
/// the device's auth generation, its unused KeyPackages with their private keys, and each
/// conversation's MLS group, read position, metadata and messages read but not yet handed out.
/// It CONTAINS SECRETS (see `Group.persist`): written 0600, replaced atomically, not encrypted.
public struct ChatClientState: Codable, Sendable {
    var authGeneration: UInt64
    var keyPackages: [StoredKeyPackage]
    var conversations: [Conversation]

    struct Conversation: Codable, Sendable {
        var id: String
        /// `Group.persist()`, hex.
        var group: String
        var kind: String
        var lastSeq: UInt64
        var joinedAt: UInt64
        /// The signed metadata plaintext, hex.
        var metadata: String
        var metadataVersion: UInt64
        var metadataOrigin: String
        /// The `#metadataAuthorProof` as the contract's JSON; nil when the device never had one.
        var authorProof: String?
        /// The snapshot's `#metadataAvatarBinding` as the contract's JSON; nil without an avatar.
        var avatarBinding: String?
        var title: String
        var unread: [Message]
        /// How and at which seq the device's interval ended ("removed", "closed", "reset"); nil while it lasts.
        var ended: String?
        var endedAt: UInt64?
    }

    struct Message: Codable, Sendable {
        var seq: UInt64
        var senderDID: String
        var senderDevice: String
        var text: String
        var attachment: Attachment?
    }

    /// A message's `ChatAttachment`, bytes as hex.
    struct Attachment: Codable, Sendable {
        var blobID: String
        var key: String
        var nonce: String
        var sha256: String
        var size: UInt64
        var plaintextSize: UInt64
        var mimeType: String
        var width: UInt64
        var height: UInt64
        var aad: String

        init(_ a: ChatAttachment) {
            blobID = a.blobID.description
            key = Hex.encode(a.key)
            nonce = Hex.encode(a.nonce)
            sha256 = Hex.encode(a.sha256)
            size = a.size
            plaintextSize = a.plaintextSize
            mimeType = a.mimeType
            width = a.width
            height = a.height
            aad = Hex.encode(a.aad)
        }

        func restored() throws(MLSClientError) -> ChatAttachment {
            guard let key = Hex.decode(key), let nonce = Hex.decode(nonce), let sha256 = Hex.decode(sha256), let aad = Hex.decode(aad) else {
                throw .storage("chat state: an attachment is not hex")
            }
            return ChatAttachment(blobID: try ChatClientState.uuid(blobID), key: key, nonce: nonce, sha256: sha256, size: size,
                                  plaintextSize: plaintextSize, mimeType: mimeType, width: width, height: height, aad: aad)
        }
    }

    /// The state `client` holds now.
    public init(of client: ChatClient) {
        authGeneration = client.authGeneration
        keyPackages = client.keyPackages.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { StoredKeyPackage($0.value) }
        conversations = client.conversations.sorted { $0.key < $1.key }.map { id, membership in
            let proof = membership.authorProof.members?.isEmpty == false ? ChatJSON.render(membership.authorProof) : nil
            return Conversation(
                id: id.description, group: Hex.encode(membership.group.persist()), kind: membership.kind, lastSeq: membership.lastSeq,
                joinedAt: membership.joinedAt, metadata: Hex.encode(membership.metadata), metadataVersion: membership.metadataVersion,
                metadataOrigin: membership.metadataOrigin.description, authorProof: proof.map { String(decoding: $0, as: UTF8.self) },
                avatarBinding: membership.avatarBinding.map { String(decoding: ChatJSON.render($0), as: UTF8.self) },
                title: membership.title,
                unread: membership.unread.map {
                    Message(seq: $0.seq, senderDID: $0.senderDID, senderDevice: $0.senderDevice.description, text: $0.text,
                            attachment: $0.attachment.map(Attachment.init))
                },
                ended: membership.ended.map {
                    switch $0 {
                    case .removed: "removed"
                    case .closed: "closed"
                    case .reset: "reset"
                    }
                },
                endedAt: membership.ended?.seq)
        }
    }

    /// Puts this state into `client` (a client of the same device, just made).
    public func restore(into client: ChatClient) throws(MLSClientError) {
        client.resume(authGeneration: authGeneration)
        for stored in keyPackages {
            let bundle = try stored.bundle(signingKey: client.device.signingKey)
            client.keyPackages[bundle.ref] = bundle
        }
        for conversation in conversations {
            client.conversations[try Self.uuid(conversation.id)] = try conversation.membership()
        }
    }

    static func uuid(_ text: String) throws(MLSClientError) -> ChatUUID {
        guard let uuid = ChatUUID(text) else { throw .storage("chat state: \(text) is not a UUID") }
        return uuid
    }

    // MARK: Files

    public func save(to file: URL) throws(MLSClientError) {
        try MLSClientStore(directory: file.deletingLastPathComponent()).writeJSON(self, file)
    }

    /// The state saved at `file`, or nil when there is none yet.
    public static func load(from file: URL) throws(MLSClientError) -> ChatClientState? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try MLSClientStore(directory: file.deletingLastPathComponent()).readJSON(ChatClientState.self, file, missing: "")
    }
}

extension ChatClientState.Conversation {
    func membership() throws(MLSClientError) -> ChatClient.ChatMembership {
        guard let persisted = Hex.decode(group), let metadata = Hex.decode(metadata) else {
            throw .storage("chat state of \(id) is not hex")
        }
        let restored: Group
        do { restored = try Group(restoring: persisted) } catch { throw .mls(error) }
        var proof = ChatValue.object([:])
        if let authorProof {
            do { proof = try ChatProjection().project(json: Array(authorProof.utf8), as: .ref("metadataAuthorProof")) } catch {
                throw .storage("chat state of \(id): the metadata author proof: \(error)")
            }
        }
        var membership = ChatClient.ChatMembership(
            group: restored, kind: kind, lastSeq: lastSeq, joinedAt: joinedAt, metadata: metadata, metadataVersion: metadataVersion,
            metadataOrigin: try ChatClientState.uuid(metadataOrigin), authorProof: proof, title: title)
        if let avatarBinding {
            do { membership.avatarBinding = try ChatProjection().project(json: Array(avatarBinding.utf8), as: .ref("metadataAvatarBinding")) } catch {
                throw .storage("chat state of \(id): the avatar binding: \(error)")
            }
        }
        switch (ended, endedAt) {
        case (nil, nil): break
        case ("removed", let seq?): membership.ended = .removed(seq: seq)
        case ("closed", let seq?): membership.ended = .closed(seq: seq)
        case ("reset", let seq?): membership.ended = .reset(seq: seq)
        default: throw .storage("chat state of \(id): unknown end \(ended ?? "") at \(endedAt.map(String.init) ?? "no seq")")
        }
        for message in unread {
            membership.unread.append(ChatClient.Message(seq: message.seq, senderDID: message.senderDID,
                                                        senderDevice: try ChatClientState.uuid(message.senderDevice), text: message.text,
                                                        attachment: try message.attachment?.restored()))
        }
        return membership
    }
}
