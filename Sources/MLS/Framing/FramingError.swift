import Primitives

/// Why protecting or unprotecting a PublicMessage or PrivateMessage failed (RFC 9420 §6).
public enum FramingError: Error, Sendable, Equatable {
    /// The message names another group than the one it is processed for.
    case wrongGroupID
    /// The message belongs to another epoch than the one it is processed for.
    case wrongEpoch(expected: UInt64, actual: UInt64)
    /// The AuthenticatedContent's wire format does not match the envelope it is put in.
    case wrongWireFormat
    /// Application data may only travel in a PrivateMessage (RFC 9420 §6.2).
    case applicationMessageInPublicMessage
    /// A PrivateMessage can only come from a member (RFC 9420 §6.3).
    case senderNotMember
    /// External and new-member senders may only send proposals, a new-member commit only a commit (RFC 9420 §6).
    case contentTypeNotAllowedForSender
    /// The caller knows no signature key for this sender.
    case unknownSender(Sender)
    /// A member's PublicMessage needs a membership key to tag or check it.
    case missingMembershipKey
    case invalidMembershipTag
    case invalidSignature
    /// A commit must carry a confirmation tag (RFC 9420 §6.1).
    case missingConfirmationTag
    case invalidConfirmationTag
    /// The content is not a commit where one is required (transcript hashes).
    case notACommit
    /// Sender data did not authenticate: wrong key, wrong AAD (group, epoch, content type) or tampering.
    case senderDataDecryptionFailed
    /// Content did not authenticate under the sender's ratchet key.
    case contentDecryptionFailed
    /// The plaintext's padding holds a non-zero byte (RFC 9420 §6.3.1).
    case nonZeroPadding
    /// A padding request that cannot be met (negative, or a block size below 1).
    case invalidPadding
    /// Decrypted bytes that do not parse.
    case malformed(DecodingError)
    /// A secret-tree failure: unknown leaf, a generation already consumed, too far ahead.
    case schedule(ScheduleError)
    case crypto(CryptoError)
}
