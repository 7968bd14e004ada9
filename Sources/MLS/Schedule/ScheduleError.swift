import Primitives

/// Why a key-schedule or secret-tree request failed.
public enum ScheduleError: Error, Sendable, Equatable {
    /// A leaf index outside the secret tree.
    case invalidLeaf(UInt32)
    /// The generation was already used or its key was deleted (RFC 9420 §9.2: keys are single use).
    case generationConsumed(UInt32)
    /// The generation is further ahead of the ratchet than the configured window allows.
    case generationTooFarAhead(requested: UInt32, current: UInt32)
    /// The ratchet reached the last 32-bit generation.
    case ratchetExhausted
    /// A reuse guard that is not 4 bytes or a nonce shorter than 4 bytes.
    case invalidReuseGuard
    case crypto(CryptoError)
}
