import Primitives

/// confirmation_tag = MAC(confirmation_key, confirmed_transcript_hash) (RFC 9420 §6.1, §8.2).
public enum ConfirmationTag {
    public static func compute(
        suite: CipherSuite, confirmationKey: [UInt8], confirmedTranscriptHash: [UInt8]
    ) throws(FramingError) -> [UInt8] {
        do {
            return try suite.mac(key: confirmationKey, data: confirmedTranscriptHash)
        } catch {
            throw .crypto(error)
        }
    }

    public static func verify(
        _ tag: [UInt8], suite: CipherSuite, confirmationKey: [UInt8], confirmedTranscriptHash: [UInt8]
    ) throws(FramingError) {
        let expected = try compute(suite: suite, confirmationKey: confirmationKey, confirmedTranscriptHash: confirmedTranscriptHash)
        guard ConstantTime.equals(expected, tag) else { throw .invalidConfirmationTag }
    }
}
