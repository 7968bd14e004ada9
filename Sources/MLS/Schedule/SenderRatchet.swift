import Primitives

/// An AEAD key and nonce from a sender ratchet, with the generation they belong to.
public struct RatchetKeyNonce: Sendable, Equatable, CustomStringConvertible {
    public let generation: UInt32
    public let key: [UInt8]
    public let nonce: [UInt8]

    public var description: String { "RatchetKeyNonce(generation: \(generation))" }
}

/// Bounds on how far a receiver ratchets ahead and how many skipped keys it keeps (RFC 9420 §9.2
/// leaves both to the application).
public struct RatchetWindow: Sendable, Equatable {
    /// The largest jump from the ratchet's current generation a receiver accepts.
    public var maxForwardDistance: UInt32
    /// How many skipped keys are retained for out-of-order messages; the oldest go first.
    public var maxRetainedKeys: Int

    public init(maxForwardDistance: UInt32 = 1000, maxRetainedKeys: Int = 1000) {
        self.maxForwardDistance = maxForwardDistance
        self.maxRetainedKeys = maxRetainedKeys
    }

    public static let `default` = RatchetWindow()
}

/// A hash ratchet for one sender and content type (RFC 9420 §9.1). Each key and nonce is handed
/// out at most once; the ratchet secret of a used generation is overwritten by the next one.
public struct SenderRatchet: Sendable, CustomStringConvertible {
    public let suite: CipherSuite
    public let window: RatchetWindow
    /// The secret for `generation`, which has not been used yet.
    private var secret: [UInt8]
    /// The next generation this ratchet will produce.
    public private(set) var generation: UInt32
    /// Keys for skipped generations below `generation`, kept for out-of-order delivery.
    private var retained: [UInt32: RatchetKeyNonce] = [:]
    private var exhausted = false

    public init(suite: CipherSuite, secret: [UInt8], window: RatchetWindow = .default) {
        self.suite = suite
        self.secret = secret
        self.window = window
        generation = 0
    }

    public var description: String { "SenderRatchet(generation: \(generation), retained: \(retained.count))" }

    public var retainedGenerations: [UInt32] { retained.keys.sorted() }

    /// The sender side: the key and nonce for the current generation, then advance.
    public mutating func next() throws(ScheduleError) -> RatchetKeyNonce {
        guard !exhausted else { throw .ratchetExhausted }
        return try advance()
    }

    /// The receiver side: the key and nonce for `requested`, deriving forward (and retaining the
    /// skipped keys) when it is ahead. A key is returned once and then deleted.
    public mutating func keyNonce(for requested: UInt32) throws(ScheduleError) -> RatchetKeyNonce {
        if requested < generation || exhausted {
            guard let key = retained.removeValue(forKey: requested) else { throw .generationConsumed(requested) }
            return key
        }
        guard requested - generation <= window.maxForwardDistance else {
            throw .generationTooFarAhead(requested: requested, current: generation)
        }
        while generation < requested {
            let skipped = try advance()
            retained[skipped.generation] = skipped
        }
        trimRetained()
        return try advance()
    }

    /// Derives key and nonce for `generation`, moves the secret on and wipes the old one.
    private mutating func advance() throws(ScheduleError) -> RatchetKeyNonce {
        do {
            let key = try suite.deriveTreeSecret(secret: secret, label: "key", generation: generation, length: suite.nk)
            let nonce = try suite.deriveTreeSecret(secret: secret, label: "nonce", generation: generation, length: suite.nn)
            var nextSecret = try suite.deriveTreeSecret(secret: secret, label: "secret", generation: generation, length: suite.nh)
            swap(&secret, &nextSecret)
            ConstantTime.wipe(&nextSecret)
            let result = RatchetKeyNonce(generation: generation, key: key, nonce: nonce)
            if generation == UInt32.max { exhausted = true } else { generation += 1 }
            return result
        } catch {
            throw .crypto(error)
        }
    }

    private mutating func trimRetained() {
        guard retained.count > window.maxRetainedKeys else { return }
        for old in retained.keys.sorted().prefix(retained.count - window.maxRetainedKeys) {
            retained.removeValue(forKey: old)
        }
    }
}
