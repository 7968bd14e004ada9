import Primitives

/// Proposals and commits on the wire under the member's `WireFormatPolicy` (RFC 9420 §6.2, §6.3).
extension Group {
    /// Frames signed proposal or commit content in the wire format it was signed for (the signature
    /// covers it, RFC 9420 §6.1): a PublicMessage with the membership tag, or a PrivateMessage under
    /// this member's next key of the handshake ratchet of `secretTree` (§9.1).
    func frameHandshake(
        _ authenticated: AuthenticatedContent, membershipKey: [UInt8]?, secretTree: inout SecretTree
    ) throws(GroupError) -> MLSMessage {
        do {
            if authenticated.wireFormat == .privateMessage {
                let message = try PrivateMessage.encrypt(
                    authenticated, secretTree: &secretTree, senderDataSecret: epochSecrets.senderDataSecret,
                    suite: state.suite, padding: configuration.padding)
                return MLSMessage(body: .privateMessage(message))
            }
            let message = try PublicMessage(protecting: authenticated, membershipKey: membershipKey, context: state.context,
                                            suite: state.suite)
            return MLSMessage(body: .publicMessage(message))
        } catch {
            throw GroupState.map(error)
        }
    }

    /// OpenMLS's incoming check: a member's proposal or commit must arrive in a wire format the
    /// policy accepts. Application data and non-members' messages are not handshake messages a
    /// member chooses the framing of, so they pass.
    func checkIncomingWireFormat(_ wireFormat: WireFormat, contentType: ContentType, fromMember: Bool) throws(GroupError) {
        guard fromMember, contentType != .application else { return }
        guard configuration.wireFormatPolicy.accepts(wireFormat) else {
            let framing = wireFormat == .privateMessage ? "PrivateMessage" : "PublicMessage"
            throw .unexpectedMessage("a handshake message as \(framing), which the wire format policy refuses")
        }
    }
}
