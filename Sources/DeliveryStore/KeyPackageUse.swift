/// A KeyPackage that a commit (or a new group) adds: its RFC 9420 §5.2 KeyPackageRef and the DID
/// whose leaf it becomes.
public struct KeyPackageUse: Sendable, Hashable {
    public var ref: [UInt8]
    public var ownerDID: String

    public init(ref: [UInt8], ownerDID: String) {
        self.ref = ref
        self.ownerDID = ownerDID
    }
}

/// A Welcome and the new members it admits: stored once, with one row per recipient pointing to it.
public struct WelcomeDelivery: Sendable, Hashable {
    public var welcome: [UInt8]
    public var recipients: [WelcomeRecipient]

    public init(welcome: [UInt8], recipients: [WelcomeRecipient]) {
        self.welcome = welcome
        self.recipients = recipients
    }

    /// A Welcome for one new member.
    public init(recipientDID: String, welcome: [UInt8], keyPackageRef: [UInt8]? = nil) {
        self.init(welcome: welcome, recipients: [WelcomeRecipient(did: recipientDID, keyPackageRef: keyPackageRef)])
    }
}

/// One new member a Welcome admits: its DID and the KeyPackageRef the Welcome's secrets are for.
public struct WelcomeRecipient: Sendable, Hashable {
    public var did: String
    public var keyPackageRef: [UInt8]?

    public init(did: String, keyPackageRef: [UInt8]? = nil) {
        self.did = did
        self.keyPackageRef = keyPackageRef
    }
}
