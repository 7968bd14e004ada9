import Primitives

/// Application messages (RFC 9420 §6.3, §15.1).
extension Group {
    /// Signs and encrypts application data as a PrivateMessage with this member's next application key.
    public mutating func encrypt(_ data: [UInt8], authenticatedData: [UInt8] = []) throws(GroupError) -> MLSMessage {
        try checkActive()
        let content = FramedContent(groupID: groupID, epoch: epoch, sender: .member(leafIndex: ownLeaf),
                                    authenticatedData: authenticatedData, content: .application(data))
        let message: PrivateMessage
        do {
            message = try PrivateMessage.protect(
                content, signingKey: signingKey, context: state.context, secretTree: &secretTree,
                senderDataSecret: epochSecrets.senderDataSecret, suite: state.suite, padding: configuration.padding)
        } catch {
            throw GroupState.map(error)
        }
        noteGeneration(leaf: ownLeaf, handshake: false)
        return MLSMessage(body: .privateMessage(message))
    }

    /// Decrypts an application message; any other content is refused without changing the state.
    public mutating func decrypt(_ message: MLSMessage) throws(GroupError) -> (data: [UInt8], sender: UInt32) {
        guard case .privateMessage(let privateMessage) = message.body, privateMessage.contentType == .application else {
            throw .unexpectedMessage("not an application PrivateMessage")
        }
        guard case .application(let data, let sender, _) = try process(privateMessage) else {
            throw .unexpectedMessage("not application data")
        }
        return (data, sender)
    }
}
