import Basics
import Foundation
import Store

/// Each operation of `DeliveryTransaction` as a transaction of its own; see there for the rules.
extension DeliveryStore {
    // MARK: Conversations

    public func createConvo(_ creation: ConvoCreation) throws(DeliveryStoreError) -> ConvoSummary {
        try run { transaction throws(DeliveryStoreError) in try transaction.createConvo(creation) }
    }

    public func loadConvo(_ convoID: String) throws(DeliveryStoreError) -> ConvoState {
        try run { transaction throws(DeliveryStoreError) in try transaction.loadConvo(convoID) }
    }

    public func epoch(convoID: String) throws(DeliveryStoreError) -> Int64 {
        try run { transaction throws(DeliveryStoreError) in try transaction.epoch(convoID: convoID) }
    }


    public func updateGroupInfo(convoID: String, epoch: Int64, groupInfo: [UInt8]) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try transaction.updateGroupInfo(convoID: convoID, epoch: epoch, groupInfo: groupInfo)
        }
    }

    // MARK: Members

    public func members(convoID: String, includeLeft: Bool = false) throws(DeliveryStoreError) -> [MemberRow] {
        try run { transaction throws(DeliveryStoreError) in try transaction.members(convoID: convoID, includeLeft: includeLeft) }
    }

    public func isMember(convoID: String, did: DID) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in try transaction.isMember(convoID: convoID, did: did) }
    }

    public func memberRole(convoID: String, did: DID) throws(DeliveryStoreError) -> MemberRole? {
        try run { transaction throws(DeliveryStoreError) in try transaction.memberRole(convoID: convoID, did: did) }
    }

    public func setAdmin(convoID: String, did: DID, isAdmin: Bool) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in try transaction.setAdmin(convoID: convoID, did: did, isAdmin: isAdmin) }
    }

    // MARK: Commits and messages

    public func applyCommit(_ application: CommitApplication) throws(DeliveryStoreError) -> CommitOutcome {
        try run { transaction throws(DeliveryStoreError) in try transaction.applyCommit(application) }
    }

    public func commits(convoID: String, fromEpoch: Int64, toEpoch: Int64? = nil,
                        limit: Int = 100) throws(DeliveryStoreError) -> [CommitRow] {
        try run { transaction throws(DeliveryStoreError) in
            try transaction.commits(convoID: convoID, fromEpoch: fromEpoch, toEpoch: toEpoch, limit: limit)
        }
    }

    public func appendMessage(_ message: NewMessage) throws(DeliveryStoreError) -> AppendedMessage {
        try run { transaction throws(DeliveryStoreError) in try transaction.appendMessage(message) }
    }

    public func messages(convoID: String, _ query: MessageQuery = MessageQuery()) throws(DeliveryStoreError) -> MessagePage {
        try run { transaction throws(DeliveryStoreError) in try transaction.messages(convoID: convoID, query) }
    }

    public func events(convoID: String, afterSeq: Int64 = 0, limit: Int = 100) throws(DeliveryStoreError) -> [ConvoEvent] {
        try run { transaction throws(DeliveryStoreError) in
            try transaction.events(convoID: convoID, afterSeq: afterSeq, limit: limit)
        }
    }

    // MARK: Key packages

    public func publishKeyPackage(_ package: NewKeyPackage) throws(DeliveryStoreError) -> PublishedKeyPackage {
        try run { transaction throws(DeliveryStoreError) in try transaction.publishKeyPackage(package) }
    }

    /// One transaction for the batch; each package succeeds or fails alone.
    public func publishKeyPackages(
        _ packages: [NewKeyPackage]
    ) throws(DeliveryStoreError) -> [Result<PublishedKeyPackage, DeliveryStoreError>] {
        try run { transaction throws(DeliveryStoreError) in transaction.publishKeyPackages(packages) }
    }

    public func keyPackages(for dids: [DID], cipherSuite: UInt16? = nil) throws(DeliveryStoreError) -> KeyPackageSelection {
        try run { transaction throws(DeliveryStoreError) in try transaction.keyPackages(for: dids, cipherSuite: cipherSuite) }
    }

    public func unconsumedKeyPackageRefs(_ refs: [[UInt8]]) throws(DeliveryStoreError) -> Set<[UInt8]> {
        try run { transaction throws(DeliveryStoreError) in try transaction.unconsumedKeyPackageRefs(refs) }
    }

    public func keyPackage(ref: [UInt8]) throws(DeliveryStoreError) -> StoredKeyPackage? {
        try run { transaction throws(DeliveryStoreError) in try transaction.keyPackage(ref: ref) }
    }

    public func keyPackages(refs: [[UInt8]]) throws(DeliveryStoreError) -> [StoredKeyPackage] {
        try run { transaction throws(DeliveryStoreError) in try transaction.keyPackages(refs: refs) }
    }

    public func keyPackageStats(owner: DID, cipherSuite: UInt16? = nil) throws(DeliveryStoreError) -> KeyPackageStats {
        try run { transaction throws(DeliveryStoreError) in try transaction.keyPackageStats(owner: owner, cipherSuite: cipherSuite) }
    }

    @discardableResult
    public func deleteExpiredKeyPackages() throws(DeliveryStoreError) -> Int {
        try run { transaction throws(DeliveryStoreError) in try transaction.deleteExpiredKeyPackages() }
    }

    // MARK: Welcomes and proposals

    public func welcome(convoID: String, recipient: DID) throws(DeliveryStoreError) -> WelcomeRow {
        try run { transaction throws(DeliveryStoreError) in try transaction.welcome(convoID: convoID, recipient: recipient) }
    }

    @discardableResult
    public func confirmWelcome(convoID: String, recipient: DID, success: Bool,
                               errorDetails: String? = nil) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in
            try transaction.confirmWelcome(convoID: convoID, recipient: recipient, success: success,
                                           errorDetails: errorDetails)
        }
    }

    @discardableResult
    public func addPendingProposal(_ proposal: PendingProposal) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in try transaction.addPendingProposal(proposal) }
    }

    public func pendingProposals(convoID: String, epoch: Int64? = nil) throws(DeliveryStoreError) -> [PendingProposal] {
        try run { transaction throws(DeliveryStoreError) in try transaction.pendingProposals(convoID: convoID, epoch: epoch) }
    }
}

/// Thin-mode storage registrations.
extension DeliveryStore {
    public func registerStorage(did: DID, provider: StorageProvider) throws(DeliveryStoreError) -> StorageRegistration {
        try run { transaction throws(DeliveryStoreError) in try transaction.registerStorage(did: did, provider: provider) }
    }

    public func storage(did: DID) throws(DeliveryStoreError) -> StorageRegistration? {
        try run { transaction throws(DeliveryStoreError) in try transaction.storage(did: did) }
    }

    public func recipients(convoID: String, excluding senderDID: DID) throws(DeliveryStoreError) -> [MessageRecipient] {
        try run { transaction throws(DeliveryStoreError) in try transaction.recipients(convoID: convoID, excluding: senderDID) }
    }
}
