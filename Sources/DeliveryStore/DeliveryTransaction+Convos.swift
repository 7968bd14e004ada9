import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Creates a conversation in one go: the convo row (epoch, public state, GroupInfo), its
    /// members from the tree (the creator's leaves are admins), the consumed key packages, the
    /// welcomes, the initial commit as commit and message, and the events. `convoAlreadyExists`
    /// if the group_id is taken; `tooManyConvos` past the creator's cap; key package errors as in
    /// `applyCommit`.
    public func createConvo(_ creation: ConvoCreation) throws(DeliveryStoreError) -> ConvoSummary {
        try guarded {
            let convoID = creation.convoID
            guard !creation.groupID.isEmpty, creation.groupID.count <= 255 else {
                throw DeliveryStoreError.invalidArgument("group_id must be 1…255 bytes")
            }
            guard creation.epoch >= (creation.initialCommit == nil ? 0 : 1) else {
                throw DeliveryStoreError.invalidArgument("epoch \(creation.epoch) cannot follow a commit")
            }
            let diff = try MemberDiff(current: [], next: creation.members, departures: [:], epoch: creation.epoch)
            let dids = Set(creation.members.map(\.did))
            guard dids.contains(creation.creatorDID.rawValue) else {
                throw DeliveryStoreError.invalidArgument("the creator holds no leaf")
            }
            try checkConvoCap(creation.creatorDID)
            try checkRecipients(creation.welcomes, creation.consumedKeyPackages, in: dids)
            try checkKeyPackages(creation.consumedKeyPackages, by: creation.creatorDID)

            let inserted = try connection.query("""
                INSERT INTO convos (convo_id, group_id, cipher_suite, epoch, public_state, group_info, group_info_epoch,
                                    creator_did, name, description, handshake)
                VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6::bytea IS NULL THEN NULL ELSE $4 END, $7, $8, $9, $10)
                ON CONFLICT (convo_id) DO NOTHING RETURNING convo_id
                """, [convoID, creation.groupID, Int32(creation.cipherSuite), creation.epoch, creation.publicState,
                      creation.groupInfo, creation.creatorDID, creation.name, creation.description, creation.handshake.rawValue])
            guard !inserted.isEmpty else { throw DeliveryStoreError.convoAlreadyExists }

            try insertMembers(convoID, diff.joined, epoch: creation.epoch, admins: [creation.creatorDID.rawValue])
            try consumeKeyPackages(creation.consumedKeyPackages, by: creation.creatorDID, convoID: convoID)
            try storeWelcomes(convoID, creation.welcomes, epoch: creation.epoch, sender: creation.creatorDID)
            if let commit = creation.initialCommit {
                // The commit message is the log's first event (its own row); the joins follow it.
                let commitEpoch = creation.epoch - 1
                let msgID = creation.initialCommitMsgID ?? "commit-\(commitEpoch)"
                _ = try appendCommitMessage(convoID: convoID, msgID: msgID, epoch: commitEpoch,
                                            senderDID: creation.creatorDID.rawValue, commit: commit)
            }
            try appendEvents(convoID, diff.changes.map(PendingEvent.membership))
            return ConvoSummary(convo: try loadConvoRow(convoID), members: try members(convoID: convoID))
        }
    }

    /// The conversation's row; `convoNotFound` if there is none.
    public func loadConvo(_ convoID: String) throws(DeliveryStoreError) -> ConvoState {
        try guarded { try loadConvoRow(convoID) }
    }

    /// The conversation's current epoch; `convoNotFound` if there is none.
    public func epoch(convoID: String) throws(DeliveryStoreError) -> Int64 {
        try guarded {
            let rows = try connection.query("SELECT epoch FROM convos WHERE convo_id = $1", [convoID])
            guard let row = rows.first else { throw DeliveryStoreError.convoNotFound }
            return try row.int64("epoch")
        }
    }

    /// Replaces the stored GroupInfo with one for `epoch`, which must be the current epoch.
    public func updateGroupInfo(convoID: String, epoch: Int64, groupInfo: [UInt8]) throws(DeliveryStoreError) {
        try guarded {
            let current = try lockConvo(convoID)
            guard epoch == current else { throw DeliveryStoreError.epochMismatch(current: current) }
            try connection.execute("UPDATE convos SET group_info = $2, group_info_epoch = $3 WHERE convo_id = $1",
                                   [convoID, groupInfo, epoch])
        }
    }

    func loadConvoRow(_ convoID: String) throws -> ConvoState {
        let rows = try connection.query("SELECT \(ConvoState.columns) FROM convos c WHERE c.convo_id = $1", [convoID])
        guard let row = rows.first else { throw DeliveryStoreError.convoNotFound }
        return try ConvoState(row: row)
    }

    /// Welcomes and added key packages must be for DIDs that hold a leaf in the new tree.
    func checkRecipients(_ welcomes: [WelcomeDelivery], _ packages: [KeyPackageUse], in dids: Set<String>) throws {
        for recipient in welcomes.lazy.flatMap(\.recipients) where !dids.contains(recipient.did) {
            throw DeliveryStoreError.invalidArgument("a welcome for \(recipient.did), who holds no leaf")
        }
        for package in packages where !dids.contains(package.ownerDID) {
            throw DeliveryStoreError.invalidArgument("a key package for \(package.ownerDID), who holds no leaf")
        }
    }
}

extension ConvoState {
    /// The columns of `convos c`.
    static let columns = """
        c.convo_id, c.group_id, c.cipher_suite, c.epoch, c.public_state, c.group_info, c.group_info_epoch, \
        c.creator_did, c.name, c.description, c.created_at, c.last_message_at, c.last_seq, c.last_event_seq, \
        c.frozen_epoch, c.handshake
        """

    init(row: PGRow) throws {
        self.init(convoID: try row.string("convo_id"), groupID: try row.bytes("group_id"),
                  cipherSuite: try row.cipherSuite("cipher_suite"), epoch: try row.int64("epoch"),
                  publicState: try row.bytes("public_state"), groupInfo: try row.optionalBytes("group_info"),
                  groupInfoEpoch: try row.optionalInt64("group_info_epoch"), creatorDID: try row.string("creator_did"),
                  name: try row.optionalString("name"), description: try row.optionalString("description"),
                  createdAt: try row.date("created_at"), lastMessageAt: try row.optionalDate("last_message_at"),
                  lastSeq: try row.int64("last_seq"), lastEventSeq: try row.int64("last_event_seq"),
                  frozenEpoch: try row.optionalInt64("frozen_epoch"), handshake: try row.handshake("handshake"))
    }
}

extension PGRow {
    func handshake(_ column: String) throws -> ConvoHandshake {
        guard let policy = ConvoHandshake(rawValue: try string(column)) else { throw StoreError.decoding("\(column): unknown policy") }
        return policy
    }
}
