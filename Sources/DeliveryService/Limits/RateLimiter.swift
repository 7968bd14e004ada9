import Synchronization

/// Token buckets per key (an IP or a DID), one rule for all keys. Keys hash to one of `shardCount`
/// mutex-guarded dictionaries, so requests for different keys rarely contend. Memory stays bounded:
/// each shard drops buckets that have refilled completely (an absent bucket is a full one, so this
/// changes no decision) every `sweepEvery` operations, and past `maxKeysPerShard` forgets the
/// longest-idle keys first.
public final class RateLimiter: Sendable {
    public let rule: RateLimitRule
    private let shards: [ShardLock]
    private let maxKeysPerShard: Int
    private let sweepEvery: Int

    struct Shard {
        var buckets: [String: TokenBucket] = [:]
        var operations = 0
    }

    final class ShardLock: Sendable {
        let mutex = Mutex(Shard())
    }

    public init(rule: RateLimitRule, shardCount: Int = 64, maxKeysPerShard: Int = 4096, sweepEvery: Int = 1024) {
        precondition(shardCount > 0 && maxKeysPerShard > 0 && sweepEvery > 0)
        self.rule = rule
        self.maxKeysPerShard = maxKeysPerShard
        self.sweepEvery = sweepEvery
        shards = (0..<shardCount).map { _ in ShardLock() }
    }

    /// Takes one token from `key`'s bucket at monotonic time `now` (nanoseconds).
    public func take(_ key: String, now: UInt64) -> RateLimitDecision {
        let index = Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))
        return shards[index].mutex.withLock { shard in
            shard.operations += 1
            if shard.operations >= sweepEvery {
                shard.operations = 0
                sweep(&shard, now: now)
            }
            if shard.buckets[key] == nil, shard.buckets.count >= maxKeysPerShard {
                sweep(&shard, now: now)
                if shard.buckets.count >= maxKeysPerShard { evictIdlest(&shard) }
            }
            return shard.buckets[key, default: TokenBucket(rule: rule, now: now)].take(rule: rule, now: now)
        }
    }

    /// Keys currently held, across shards (for tests and metrics).
    public var keyCount: Int { shards.reduce(0) { $0 + $1.mutex.withLock { $0.buckets.count } } }

    /// Drops every bucket that would be full at `now`.
    public func sweep(now: UInt64) {
        for shard in shards { shard.mutex.withLock { sweep(&$0, now: now) } }
    }

    private func sweep(_ shard: inout Shard, now: UInt64) {
        shard.buckets = shard.buckets.filter { _, bucket in !bucket.isFull(rule: rule, at: now) }
    }

    /// Forgets the least recently used quarter of a full shard: it grants those keys a fresh burst,
    /// the lesser harm than refusing keys never seen.
    private func evictIdlest(_ shard: inout Shard) {
        let drop = max(1, shard.buckets.count / 4)
        let victims = shard.buckets.sorted { $0.value.updated < $1.value.updated }.prefix(drop).map(\.key)
        for key in victims { shard.buckets.removeValue(forKey: key) }
    }
}
