import ATProto
import Basics
import Foundation
import Synchronization

/// The public records the chat contract's relationship checks rest on, read from each account's
/// PDS (the `#atproto_pds` of the DID document the DID resolver holds): its blocks
/// (`app.bsky.graph.block`), its follows (`app.bsky.graph.follow`) and its chat policy
/// (`blue.catbird.chat.policy`). Each (account, kind) is read on the resolver's own threads
/// (`FetchPool`: the DID resolver's caps on threads, per host and queue; one flight per key) within
/// `settings.timeout`, page by page up to `settings.maxRecords`, and kept in a cache as DID
/// documents are: fresh for `settings.freshFor`, failures remembered for the DID resolver's
/// transient-failure time, so that an account whose PDS is down costs one read per interval.
/// Nothing here blocks its caller: `state` answers from the cache, `fetch` calls back.
final class RelationshipResolver: Sendable {
    enum Kind: String, Sendable {
        case blocks, follows, policy

        var collection: String {
            switch self {
            case .blocks: "app.bsky.graph.block"
            case .follows: "app.bsky.graph.follow"
            case .policy: ChatPolicy.collection
            }
        }
    }

    struct Key: Hashable, Sendable {
        let did: DID
        let kind: Kind
    }

    enum Value: Sendable, Equatable {
        case subjects(RepoRecordReader.Subjects)
        case policy(ChatPolicy)
    }

    /// What the cache says of a key.
    enum State: Sendable, Equatable {
        case value(Value)
        /// Not read, or too old for the question: fetch it.
        case missing
        /// The last read failed a moment ago.
        case unavailable
    }

    /// How old an answer may be: `admission` (createConversation, acceptConversation, leaf
    /// recovery) wants records younger than `freshFor`; `traffic` (sendMessage, publishTyping)
    /// takes any the cache still holds, and queues a refresh of what is old or missing.
    enum Use: Sendable { case admission, traffic }

    struct Failure: Error, Equatable {}

    let settings: ChatRelationshipSettings
    private let didResolver: DIDResolver
    private let reader: RepoRecordReader
    private let clock: @Sendable () -> Date
    private let log: Log?
    private let cache: Mutex<ResolutionCache<Key, Value, Failure>>
    private let pool: FetchPool<Key>

    init(didResolver: DIDResolver, settings: ChatRelationshipSettings, log: Log? = nil,
         clock: @escaping @Sendable () -> Date = Date.init) {
        let resolver = didResolver.configuration
        self.settings = settings
        self.didResolver = didResolver
        self.clock = clock
        self.log = log
        reader = RepoRecordReader(resolver: resolver)
        cache = Mutex(ResolutionCache(freshFor: settings.freshFor, hardExpiry: settings.freshFor * 10,
                                      negativeFor: resolver.transientFailureCacheFor, transientFor: resolver.transientFailureCacheFor,
                                      capacity: settings.cacheCapacity, weigh: { value in
                                          if case .subjects(let subjects) = value { return subjects.dids.count + 1 }
                                          return 1
                                      }))
        pool = FetchPool(name: "chat-records", maxQueued: resolver.maxQueuedFetches, maxRunning: resolver.maxFetches,
                         maxPerHost: resolver.maxFetchesPerHost, maxWait: settings.timeout, clock: clock)
        pool.perform { [weak self] key in self?.read(key) }
    }

    /// The cache's answer for `key`, never waiting.
    func state(_ key: Key, for use: Use) -> State {
        switch cache.withLock({ $0.lookup(key, now: clock()) }) {
        case .fresh(let value):
            return .value(value)
        case .stale(let value, let refreshDue):
            switch use {
            case .traffic:
                if refreshDue { refresh(key) }
                return .value(value)
            case .admission:
                return refreshDue ? .missing : .unavailable
            }
        case .negative:
            return .unavailable
        case .miss:
            if use == .traffic { refresh(key) }
            return .missing
        }
    }

    /// Reads `keys` (joining reads under way) and calls `then` once every one ended, or gave up
    /// waiting for a slot (at once for those the queue has no room for).
    func fetch(_ keys: Set<Key>, then: @escaping @Sendable () -> Void) {
        guard !keys.isEmpty else { return then() }
        let remaining = Atomic<Int>(keys.count)
        let done: @Sendable () -> Void = {
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { then() }
        }
        for key in keys { request(key, waiter: done) }
    }

    /// Reads in flight and queued (tests).
    var pendingReads: (running: Int, queued: Int) { pool.pending }

    private func refresh(_ key: Key) {
        request(key, waiter: nil)
    }

    /// The account's DID document first (on the DID resolver's threads, when it is not cached), so
    /// that the read counts against its PDS's slots: one PDS that never answers holds at most
    /// `maxFetchesPerHost` of them, and the others' reads go on.
    private func request(_ key: Key, waiter: (@Sendable () -> Void)?) {
        let enqueue: @Sendable () -> Void = { [self] in
            if pool.request(key, host: host(of: key.did), waiter: waiter) == .refused { waiter?() }
        }
        switch didResolver.fetch(key.did, forced: false, then: enqueue) {
        case .ready: enqueue()
        case .started, .joined: break
        case .refused: waiter?()
        }
    }

    /// The per-host cap's key: the PDS's authority (host and port).
    private func host(of did: DID) -> String {
        guard let pds = didResolver.cachedPDSEndpoint(for: did), let url = URLComponents(string: pds), let host = url.host else {
            return "no PDS"
        }
        return host.lowercased() + (url.port.map { ":\($0)" } ?? "")
    }

    /// One read, on a pool thread: the account's PDS (an account whose document names none has no
    /// records), then the records; the outcome goes to the cache.
    private func read(_ key: Key) {
        let deadline = clock().addingTimeInterval(settings.timeout)
        let outcome: Result<Value, Failure>
        do {
            let pds = try didResolver.pdsEndpoint(for: key.did)
            switch key.kind {
            case .policy:
                let record = try pds.map { try reader.record(of: key.did, pds: $0, collection: key.kind.collection, rkey: ChatPolicy.recordKey,
                                                             deadline: deadline) } ?? nil
                outcome = .success(.policy(ChatPolicy(record: record)))
            case .blocks, .follows:
                let subjects = try pds.map { try reader.subjects(of: key.did, pds: $0, collection: key.kind.collection,
                                                                 maxRecords: settings.maxRecords, deadline: deadline) }
                outcome = .success(.subjects(subjects ?? RepoRecordReader.Subjects(dids: [], complete: true)))
            }
        } catch {
            log?.info("chat relationship records could not be read", ["kind": key.kind.rawValue, "reason": "\(error)"])
            outcome = .failure(Failure())
        }
        let now = clock()
        cache.withLock { cache in
            switch outcome {
            case .success(let value): cache.store(value, for: key, now: now)
            case .failure(let failure): cache.storeFailure(failure, transient: true, for: key, now: now)
            }
        }
    }
}
