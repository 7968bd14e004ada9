import Lexicon

extension MessageView {
    /// Whether the message is a commit (else an application message or a proposal).
    public var isCommit: Bool { messageType == "commit" }
}
