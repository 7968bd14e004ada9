import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Welcomes

    /// Joins from a `#welcomeView` addressed to this device, acknowledges it and reads the log from there.
    @discardableResult
    public func join(_ welcome: ChatValue) throws -> ChatUUID {
        guard let conversation = welcome["conversationId"]?.uuid, let bytes = welcome["opaqueWelcome"]?.bytes,
              let ref = welcome["provenance"]?["keyPackageRef"]?.bytes, let seq = welcome["transitionSeq"]?.integer,
              let id = welcome["welcomeId"]?.uuid, let coordinates = welcome["coordinates"] else {
            throw MLSClientError.invalidServerData("incomplete Welcome")
        }
        guard let bundle = keyPackages[ref] else { throw MLSClientError.noMatchingKeyPackage }
        let group = try Group.join(welcome: try MLSMessage(decoding: bytes), keyPackage: bundle)
        keyPackages[ref] = nil
        let kind = try self.state(conversation)["conversationKind"]?.text ?? "group"
        var membership = ChatMembership(group: group, kind: kind, lastSeq: seq, joinedAt: seq, metadata: [], metadataVersion: 0,
                                        metadataOrigin: conversation, authorProof: .object([:]), title: "",
                                        // A device joining again (a replaced leaf, a reset) keeps what it read and did not hand out yet.
                                        unread: conversations[conversation]?.unread ?? [])
        // The metadata as of the epoch the Welcome puts this device in: the snapshot of the entry
        // that added it (the first this device may read), signed by a leaf of the group it joined.
        let page = try query("getEntries", [("conversationId", conversation.description), ("afterSeq", String(seq - 1)), ("limit", "1")])
        guard let entry = page["entries"]?.array?.first, entry["seq"]?.integer == seq, let wrapper = entry["signedRequest"] else {
            throw MLSClientError.invalidServerData("the entry that added this device is not readable")
        }
        let request = try SignedRequest(wrapper: wrapper)
        guard let key = signerKey(request, entry: entry, fromMe: false, group: group), (try? request.verified(publicKey: key)) != nil,
              let snapshot = request.body["metadataSnapshot"] else {
            throw MLSClientError.invalidServerData("entry \(seq) is not a commit signed by a leaf of the group joined")
        }
        try adopt(snapshot, in: &membership, newVersion: false)
        conversations[conversation] = membership
        try signed("acknowledgeWelcome", .welcomeAcknowledgement, [
            "welcomeId": .uuid(id), "transitionSeq": .integer(seq), "coordinates": coordinates,
        ])
        // Then what came after it: later commits, a new title, messages (kept for `read`).
        try sync(conversation)
        return conversation
    }
}
