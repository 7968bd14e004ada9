import Basics
import Foundation

/// Per-key cache of fetched values and of failures, plus the record of forced refreshes. A pure
/// value: its owner supplies the time and holds it under a lock. The DID resolver keeps DID
/// documents in one (`DIDKeyCache`); the chat contract, the records it reads from users' PDSes.
///
/// Failures come in two kinds: definitive (the host answered: no such DID, no usable key),
/// remembered for `negativeFor`, and transient (time-out, refused connection, an unexpected status),
/// remembered for the much shorter `transientFor`, so that a flood of requests for a key whose
/// host is down costs one fetch per `transientFor`, not one per request. A transient failure
/// never displaces a value: a stale value outlives a flaky host up to the hard expiry.
///
/// `capacity` bounds the total weight of what is held: each value weighs `weigh(value)` (1 unless
/// told otherwise; a list of records weighs its length), each failure 1.
public struct ResolutionCache<Key: Hashable & Sendable, Value: Equatable & Sendable, Failure: Error & Equatable & Sendable>: Sendable {
    public enum Lookup: Equatable {
        /// Younger than `freshFor`: use it.
        case fresh(Value)
        /// Due for a refresh, and still usable; `refreshDue` is false while the last refresh failed
        /// less than `transientFor` ago.
        case stale(Value, refreshDue: Bool)
        /// A recent failure, definitive or transient.
        case negative(Failure)
        case miss
    }

    private enum Entry {
        case value(Value, fetchedAt: Date, refreshFailedAt: Date?)
        case failure(Failure, at: Date, lasting: Double)

        var time: Date {
            switch self {
            case .value(_, let date, _), .failure(_, let date, _): date
            }
        }
    }

    public let freshFor: Double
    public let hardExpiry: Double
    public let negativeFor: Double
    public let transientFor: Double
    public let forcedRefreshInterval: Double
    public let capacity: Int
    private let weigh: @Sendable (Value) -> Int
    private var entries: [Key: Entry] = [:]
    private var weight = 0
    private var forcedRefreshes: [Key: Date] = [:]

    public init(freshFor: Double, hardExpiry: Double, negativeFor: Double, transientFor: Double,
                forcedRefreshInterval: Double = 60, capacity: Int, weigh: @escaping @Sendable (Value) -> Int = { _ in 1 }) {
        self.freshFor = freshFor
        self.hardExpiry = hardExpiry
        self.negativeFor = negativeFor
        self.transientFor = transientFor
        self.forcedRefreshInterval = forcedRefreshInterval
        self.capacity = max(1, capacity)
        self.weigh = weigh
    }

    public func lookup(_ key: Key, now: Date) -> Lookup {
        switch entries[key] {
        case .value(let value, let fetchedAt, let refreshFailedAt)?:
            let age = now.timeIntervalSince(fetchedAt)
            if age < freshFor { return .fresh(value) }
            if age < hardExpiry {
                let due = refreshFailedAt.map { now.timeIntervalSince($0) >= transientFor } ?? true
                return .stale(value, refreshDue: due)
            }
            return .miss
        case .failure(let error, let at, let lasting)?:
            return now.timeIntervalSince(at) < lasting ? .negative(error) : .miss
        case nil:
            return .miss
        }
    }

    public mutating func store(_ value: Value, for key: Key, now: Date) {
        let added = max(1, weigh(value))
        remove(key)
        makeRoom(for: added, now: now)
        entries[key] = .value(value, fetchedAt: now, refreshFailedAt: nil)
        weight += added
    }

    /// Remembers a failure; a transient one leaves a usable value in place and only delays its next
    /// refresh.
    public mutating func storeFailure(_ error: Failure, transient: Bool, for key: Key, now: Date) {
        if transient, case .value(let value, let fetchedAt, _)? = entries[key], now.timeIntervalSince(fetchedAt) < hardExpiry {
            entries[key] = .value(value, fetchedAt: fetchedAt, refreshFailedAt: now)
            return
        }
        remove(key)
        makeRoom(for: 1, now: now)
        entries[key] = .failure(error, at: now, lasting: transient ? transientFor : negativeFor)
        weight += 1
    }

    /// Claims the key's forced-refresh slot if the last forced refresh is at least
    /// `forcedRefreshInterval` old (AUTH.md check 8); false means refresh is rate-limited.
    public mutating func claimForcedRefresh(_ key: Key, now: Date) -> Bool {
        if let last = forcedRefreshes[key], now.timeIntervalSince(last) < forcedRefreshInterval, now >= last {
            return false
        }
        if forcedRefreshes.count >= capacity {
            forcedRefreshes = forcedRefreshes.filter { now.timeIntervalSince($0.value) < forcedRefreshInterval }
        }
        forcedRefreshes[key] = now
        return true
    }

    public var count: Int { entries.count }

    /// The weight held now (at most `capacity`, or one value's weight when a single value outweighs it).
    public var totalWeight: Int { weight }

    private func weight(of entry: Entry) -> Int {
        switch entry {
        case .value(let value, _, _): max(1, weigh(value))
        case .failure: 1
        }
    }

    private mutating func remove(_ key: Key) {
        if let old = entries.removeValue(forKey: key) { weight -= weight(of: old) }
    }

    /// Bounds memory against floods of distinct keys: drop what has expired, then every failure (a
    /// flood of junk keys must not push out the values of the users the service knows), then the
    /// oldest values until half the capacity is left.
    private mutating func makeRoom(for added: Int, now: Date) {
        guard weight + added > capacity else { return }
        entries = entries.filter { _, entry in
            switch entry {
            case .value(_, let fetchedAt, _): now.timeIntervalSince(fetchedAt) < hardExpiry
            case .failure(_, let at, let lasting): now.timeIntervalSince(at) < lasting
            }
        }
        recount()
        guard weight + added > capacity else { return }
        entries = entries.filter { if case .value = $0.value { true } else { false } }
        recount()
        guard weight + added > capacity else { return }
        var kept: [Key: Entry] = [:]
        var keptWeight = 0
        for (key, entry) in entries.sorted(by: { $0.value.time > $1.value.time }) {
            let entryWeight = weight(of: entry)
            guard keptWeight + entryWeight + added <= capacity / 2 else { break }
            kept[key] = entry
            keptWeight += entryWeight
        }
        entries = kept
        weight = keptWeight
    }

    private mutating func recount() {
        weight = entries.values.reduce(0) { $0 + weight(of: $1) }
    }
}

/// The DID resolver's cache: signing keys by DID.
typealias DIDKeyCache = ResolutionCache<DID, AtprotoSigningKey, AuthError>
