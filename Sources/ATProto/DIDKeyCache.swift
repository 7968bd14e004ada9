import Basics
import Foundation

/// Per-DID cache of resolved signing keys and of definitive failures, plus the record of forced
/// refreshes. A pure value: the resolver supplies the time and holds it under a lock.
struct DIDKeyCache: Sendable {
    enum Lookup: Equatable {
        /// Younger than `keyFreshFor`: use it.
        case fresh(AtprotoSigningKey)
        /// Due for a refresh; still usable if the refresh fails for a transient reason.
        case stale(AtprotoSigningKey)
        /// A recent definitive failure (not found, no usable key).
        case negative(AuthError)
        case miss
    }

    private enum Entry {
        case key(AtprotoSigningKey, fetchedAt: Date)
        case failure(AuthError, at: Date)

        var time: Date {
            switch self {
            case .key(_, let date), .failure(_, let date): date
            }
        }
    }

    let freshFor: Double
    let hardExpiry: Double
    let negativeFor: Double
    let forcedRefreshInterval: Double
    let capacity: Int
    private var entries: [DID: Entry] = [:]
    private var forcedRefreshes: [DID: Date] = [:]

    init(freshFor: Double, hardExpiry: Double, negativeFor: Double, forcedRefreshInterval: Double, capacity: Int) {
        self.freshFor = freshFor
        self.hardExpiry = hardExpiry
        self.negativeFor = negativeFor
        self.forcedRefreshInterval = forcedRefreshInterval
        self.capacity = max(1, capacity)
    }

    func lookup(_ did: DID, now: Date) -> Lookup {
        switch entries[did] {
        case .key(let key, let fetchedAt)?:
            let age = now.timeIntervalSince(fetchedAt)
            if age < freshFor { return .fresh(key) }
            if age < hardExpiry { return .stale(key) }
            return .miss
        case .failure(let error, let at)?:
            return now.timeIntervalSince(at) < negativeFor ? .negative(error) : .miss
        case nil:
            return .miss
        }
    }

    mutating func store(_ key: AtprotoSigningKey, for did: DID, now: Date) {
        makeRoom(now: now)
        entries[did] = .key(key, fetchedAt: now)
    }

    mutating func storeFailure(_ error: AuthError, for did: DID, now: Date) {
        makeRoom(now: now)
        entries[did] = .failure(error, at: now)
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

    /// Bounds memory against floods of distinct DIDs: drop what has expired, then the oldest half.
    private mutating func makeRoom(now: Date) {
        guard entries.count >= capacity else { return }
        entries = entries.filter { _, entry in
            switch entry {
            case .key(_, let fetchedAt): now.timeIntervalSince(fetchedAt) < hardExpiry
            case .failure(_, let at): now.timeIntervalSince(at) < negativeFor
            }
        }
        guard entries.count >= capacity else { return }
        let keep = entries.sorted { $0.value.time > $1.value.time }.prefix(capacity / 2)
        entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
