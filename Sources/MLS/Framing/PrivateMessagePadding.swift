/// How many zero bytes to append to a PrivateMessage's plaintext (RFC 9420 §6.3.1 leaves the
/// amount to the sender; padding hides the true content length).
public enum PrivateMessagePadding: Sendable, Hashable {
    case none
    /// Exactly this many zero bytes.
    case zeros(Int)
    /// Enough zero bytes that the plaintext length is a multiple of this block size.
    case toMultiple(of: Int)

    /// The padding for a plaintext of `length` bytes without padding.
    public func paddingLength(forUnpadded length: Int) throws(FramingError) -> Int {
        switch self {
        case .none:
            return 0
        case .zeros(let count):
            guard count >= 0 else { throw .invalidPadding }
            return count
        case .toMultiple(let block):
            guard block >= 1 else { throw .invalidPadding }
            return (block - length % block) % block
        }
    }
}
