/// Which wire format a member frames its own handshake messages (proposals and commits) in, and
/// which it accepts from other members; OpenMLS's wire format policies. RFC 9420 §6 leaves the
/// choice to the application: a PublicMessage lets the delivery service validate a commit in full
/// (§12.4.2), a PrivateMessage hides it under the epoch's handshake ratchet (§6.3, §9.1).
///
/// Whatever the policy, application data is always a PrivateMessage (§6.2), and a handshake
/// message from a non-member (an external commit, §12.4.3.2; an external or new-member proposal,
/// §12.1.8) is always a PublicMessage: it has no secret tree to encrypt with.
public struct WireFormatPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The wire format of this member's own proposals and commits.
    public enum Outgoing: UInt8, Sendable, Hashable {
        case publicMessage = 1
        case privateMessage = 2
    }

    /// The wire formats accepted for other members' proposals and commits.
    public enum Incoming: UInt8, Sendable, Hashable {
        case publicMessage = 1
        case privateMessage = 2
        case either = 3
    }

    public var outgoing: Outgoing
    public var incoming: Incoming

    public init(outgoing: Outgoing, incoming: Incoming) {
        self.outgoing = outgoing
        self.incoming = incoming
    }

    /// PublicMessage both ways: what a service that validates every commit needs.
    public static let purePlaintext = WireFormatPolicy(outgoing: .publicMessage, incoming: .publicMessage)
    /// PrivateMessage both ways: OpenMLS's `PURE_CIPHERTEXT_WIRE_FORMAT_POLICY`, the Catbird app's policy
    /// ("sealed" handshakes).
    public static let pureCiphertext = WireFormatPolicy(outgoing: .privateMessage, incoming: .privateMessage)
    /// Sends PublicMessages, accepts both: this implementation's default.
    public static let mixedPlaintext = WireFormatPolicy(outgoing: .publicMessage, incoming: .either)
    /// Sends PrivateMessages, accepts both.
    public static let mixedCiphertext = WireFormatPolicy(outgoing: .privateMessage, incoming: .either)

    /// The wire format this member's handshake messages use.
    public var outgoingWireFormat: WireFormat {
        outgoing == .privateMessage ? .privateMessage : .publicMessage
    }

    /// Whether another member's proposal or commit may arrive in `wireFormat`.
    public func accepts(_ wireFormat: WireFormat) -> Bool {
        switch incoming {
        case .publicMessage: wireFormat == .publicMessage
        case .privateMessage: wireFormat == .privateMessage
        case .either: wireFormat == .publicMessage || wireFormat == .privateMessage
        }
    }

    public var description: String {
        switch (outgoing, incoming) {
        case (.publicMessage, .publicMessage): "purePlaintext"
        case (.privateMessage, .privateMessage): "pureCiphertext"
        case (.publicMessage, .either): "mixedPlaintext"
        case (.privateMessage, .either): "mixedCiphertext"
        default: "WireFormatPolicy(outgoing: \(outgoing), incoming: \(incoming))"
        }
    }
}
