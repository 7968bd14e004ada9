/// A conversation's handshake policy, fixed at creation (createConvo's `handshake`; docs/sealed-commits.md).
public enum ConvoHandshake: String, Sendable, Equatable, CaseIterable {
    /// Commits and proposals only as PublicMessages, each validated in full by the service.
    case `public`
    /// PrivateMessages too (OpenMLS's pure-ciphertext policy, the Catbird app's): a sealed commit is
    /// checked through the GroupInfo of the epoch it creates.
    case sealed
}
