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

/// A Welcome for one new member; the same Welcome bytes are stored once per recipient.
public struct WelcomeDelivery: Sendable, Hashable {
    public var recipientDID: String
    public var welcome: [UInt8]
    public var keyPackageRef: [UInt8]?

    public init(recipientDID: String, welcome: [UInt8], keyPackageRef: [UInt8]? = nil) {
        self.recipientDID = recipientDID
        self.welcome = welcome
        self.keyPackageRef = keyPackageRef
    }
}
