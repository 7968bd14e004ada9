import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Welcomes

    /// Joins from a `#welcomeView` addressed to this device and acknowledges it.
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
        let state = try self.state(conversation)
        guard let snapshot = state["metadataSnapshot"] else { throw MLSClientError.invalidServerData("no metadata") }
        let opened = try? ChatMetadata.open(snapshot, group: group)
        conversations[conversation] = ChatMembership(
            group: group, kind: state["conversationKind"]?.text ?? "group", lastSeq: seq, joinedAt: seq,
            metadata: opened?.plaintext ?? [], metadataVersion: snapshot["metadataVersion"]?.integer ?? 1,
            metadataOrigin: snapshot["originTransitionId"]?.uuid ?? conversation, authorProof: snapshot["authorProof"] ?? .object([:]),
            title: opened?.title ?? "",
            // A device joining again (a replaced leaf, a reset) keeps what it read and did not hand out yet.
            unread: conversations[conversation]?.unread ?? [])
        try signed("acknowledgeWelcome", .welcomeAcknowledgement, [
            "welcomeId": .uuid(id), "transitionSeq": .integer(seq), "coordinates": coordinates,
        ])
        return conversation
    }
}
