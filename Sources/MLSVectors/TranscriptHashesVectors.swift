import MLS

/// transcript-hashes.json: the confirmed and interim transcript hashes after a commit, and its
/// confirmation tag (RFC 9420 §8.2).
public enum TranscriptHashesVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let encoded = try VectorJSON.hex(testCase, "authenticated_content")
        let commit = try AuthenticatedContent(decoding: encoded)
        try VectorJSON.expect(commit.encoded(), encoded, "authenticated_content re-encoding")
        guard commit.content.contentType == .commit, let tag = commit.auth.confirmationTag else {
            throw VectorMismatch("authenticated_content is not a commit with a confirmation tag")
        }
        let hashes = try TranscriptHashes.afterCommit(
            suite: suite, interimBefore: try VectorJSON.hex(testCase, "interim_transcript_hash_before"), commit: commit)
        try VectorJSON.expect(hashes.confirmed, try VectorJSON.hex(testCase, "confirmed_transcript_hash_after"), "confirmed_transcript_hash_after")
        try VectorJSON.expect(hashes.interim, try VectorJSON.hex(testCase, "interim_transcript_hash_after"), "interim_transcript_hash_after")
        try ConfirmationTag.verify(
            tag, suite: suite, confirmationKey: try VectorJSON.hex(testCase, "confirmation_key"),
            confirmedTranscriptHash: hashes.confirmed)
    }
}
