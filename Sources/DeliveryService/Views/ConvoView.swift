import DeliveryStore
import Foundation
import Lexicon

extension ConvoView {
    /// The view of a stored conversation and its members.
    init(_ convo: ConvoState, members: [MemberRow]) {
        self.init(convo.header, members: members)
    }

    init(_ convo: ConvoHeader, members: [MemberRow]) {
        let metadata = convo.name == nil && convo.description == nil
            ? nil : ConvoMetadata(name: convo.name, description: convo.description)
        self.init(id: convo.convoID, groupId: convo.convoID, creator: convo.creatorDID, members: members.map(MemberView.init),
                  epoch: convo.epoch, cipherSuite: CipherSuiteName.name(convo.cipherSuite),
                  createdAt: Timestamp.rfc3339(convo.createdAt), lastMessageAt: convo.lastMessageAt.map(Timestamp.rfc3339),
                  metadata: metadata, handshake: convo.handshake.rawValue)
    }
}

extension MemberView {
    init(_ row: MemberRow) {
        self.init(did: row.did, joinedAt: Timestamp.rfc3339(row.joinedAt), leafIndex: row.leafIndex, isAdmin: row.isAdmin,
                  credential: row.credential)
    }
}
