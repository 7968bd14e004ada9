/// The confirmed and interim transcript hashes of an epoch (RFC 9420 §8.2).
public struct TranscriptHashes: Hashable, Sendable {
    /// Goes into the epoch's GroupContext.
    public var confirmed: [UInt8]
    /// The starting point for the next commit.
    public var interim: [UInt8]

    public init(confirmed: [UInt8], interim: [UInt8]) {
        self.confirmed = confirmed
        self.interim = interim
    }

    /// confirmed_transcript_hash_[epoch] = Hash(interim_transcript_hash_[epoch - 1] || ConfirmedTranscriptHashInput).
    public static func confirmed(suite: CipherSuite, interimBefore: [UInt8], commit: AuthenticatedContent) -> [UInt8] {
        suite.hash(interimBefore + ConfirmedTranscriptHashInput(commit).encoded())
    }

    /// interim_transcript_hash_[epoch] = Hash(confirmed_transcript_hash_[epoch] || InterimTranscriptHashInput).
    public static func interim(suite: CipherSuite, confirmed: [UInt8], confirmationTag: [UInt8]) -> [UInt8] {
        suite.hash(confirmed + InterimTranscriptHashInput(confirmationTag: confirmationTag).encoded())
    }

    /// Both hashes after `commit`, which must be a commit carrying its confirmation tag.
    public static func afterCommit(
        suite: CipherSuite, interimBefore: [UInt8], commit: AuthenticatedContent
    ) throws(FramingError) -> TranscriptHashes {
        guard commit.content.contentType == .commit else { throw .notACommit }
        guard let tag = commit.auth.confirmationTag, !tag.isEmpty else { throw .missingConfirmationTag }
        let confirmed = confirmed(suite: suite, interimBefore: interimBefore, commit: commit)
        return TranscriptHashes(confirmed: confirmed, interim: interim(suite: suite, confirmed: confirmed, confirmationTag: tag))
    }

    /// A joiner's hashes: the confirmed hash from the GroupInfo's GroupContext and the interim hash
    /// from it and the GroupInfo's confirmation tag (RFC 9420 §12.4.3.1). Also the creator's
    /// epoch 0, whose confirmed hash is empty (RFC 9420 §11).
    public static func fromConfirmed(suite: CipherSuite, confirmed: [UInt8], confirmationTag: [UInt8]) -> TranscriptHashes {
        TranscriptHashes(confirmed: confirmed, interim: interim(suite: suite, confirmed: confirmed, confirmationTag: confirmationTag))
    }
}
