import Basics
import Foundation

/// Per-DID cache of resolved signing keys and of failures, plus the record of forced refreshes.
/// A pure value: the resolver supplies the time and holds it under a lock.
///
/// Failures come in two kinds: definitive (the directory answered: no such DID, no usable key),
/// remembered for `negativeFor`, and transient (time-out, refused connection, an unexpected status),
/// remembered for the much shorter `transientFor`, so that a flood of tokens for a DID whose
/// directory is down costs one fetch per `transientFor`, not one per token. A transient failure
/// never displaces a key: a stale key outlives a flaky directory up to the hard expiry.
struct DIDKeyCache: Sendable {
    enum Lookup: Equatable {
        /// Younger than `freshFor`: use it.
        case fresh(AtprotoSigningKey)
        /// Due for a refresh, and still usable; `refreshDue` is false while the last refresh failed
        /// less than `transientFor` ago.
        case stale(AtprotoSigningKey, refreshDue: Bool)
        /// A recent failure, definitive or transient.
        case negative(AuthError)
        case miss
    }

    private enum Entry {
        case key(AtprotoSigningKey, fetchedAt: Date, refreshFailedAt: Date?)
        case failure(AuthError, at: Date, lasting: Double)

        var time: Date {
            switch self {
            case .key(_, let date, _), .failure(_, let date, _): date
            }
        }
    }

    let freshFor: Double
    let hardExpiry: Double
    let negativeFor: Double
    let transientFor: Double
    let forcedRefreshInterval: Double
    let capacity: Int
    private var entries: [DID: Entry] = [:]
    private var forcedRefreshes: [DID: Date] = [:]

    init(freshFor: Double, hardExpiry: Double, negativeFor: Double, transientFor: Double,
         forcedRefreshInterval: Double, capacity: Int) {
        self.freshFor = freshFor
        self.hardExpiry = hardExpiry
        self.negativeFor = negativeFor
        self.transientFor = transientFor
        self.forcedRefreshInterval = forcedRefreshInterval
        self.capacity = max(1, capacity)
    }

    func lookup(_ did: DID, now: Date) -> Lookup {
        switch entries[did] {
        case .key(let key, let fetchedAt, let refreshFailedAt)?:
            let age = now.timeIntervalSince(fetchedAt)
            if age < freshFor { return .fresh(key) }
            if age < hardExpiry {
                let due = refreshFailedAt.map { now.timeIntervalSince($0) >= transientFor } ?? true
                return .stale(key, refreshDue: due)
            }
            return .miss
        case .failure(let error, let at, let lasting)?:
            return now.timeIntervalSince(at) < lasting ? .negative(error) : .miss
        case nil:
            return .miss
        }
    }

    mutating func store(_ key: AtprotoSigningKey, for did: DID, now: Date) {
        makeRoom(now: now)
        entries[did] = .key(key, fetchedAt: now, refreshFailedAt: nil)
    }

    /// Remembers a failure; a transient one leaves a usable key in place and only delays its next
    /// refresh.
    mutating func storeFailure(_ error: AuthError, transient: Bool, for did: DID, now: Date) {
        if transient, case .key(let key, let fetchedAt, _)? = entries[did], now.timeIntervalSince(fetchedAt) < hardExpiry {
            entries[did] = .key(key, fetchedAt: fetchedAt, refreshFailedAt: now)
            return
        }
        makeRoom(now: now)
        entries[did] = .failure(error, at: now, lasting: transient ? transientFor : negativeFor)
    }

    /// Claims the DID's forced-refresh slot if the last forced refresh is at least
    /// `forcedRefreshInterval` old (AUTH.md check 8); false means refresh is rate-limited.
    mutating func claimForcedRefresh(_ did: DID, now: Date) -> Bool {
        if let last = forcedRefreshes[did], now.timeIntervalSince(last) < forcedRefreshInterval, now >= last {
            return false
        }
        if forcedRefreshes.count >= capacity {
            forcedRefreshes = forcedRefreshes.filter { now.timeIntervalSince($0.value) < forcedRefreshInterval }
        }
        forcedRefreshes[did] = now
        return true
    }

    var count: Int { entries.count }

    /// Bounds memory against floods of distinct DIDs: drop what has expired, then every failure (a
    /// flood of junk DIDs must not push out the keys of the users the service knows), then the
    /// oldest half.
    private mutating func makeRoom(now: Date) {
        guard entries.count >= capacity else { return }
        entries = entries.filter { _, entry in
            switch entry {
            case .key(_, let fetchedAt, _): now.timeIntervalSince(fetchedAt) < hardExpiry
            case .failure(_, let at, let lasting): now.timeIntervalSince(at) < lasting
            }
        }
        guard entries.count >= capacity else { return }
        entries = entries.filter { if case .key = $0.value { true } else { false } }
        guard entries.count >= capacity else { return }
        let keep = entries.sorted { $0.value.time > $1.value.time }.prefix(capacity / 2)
        entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
