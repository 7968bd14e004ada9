import DeliveryStore
import Foundation

/// Removes attachment files nothing refers to. A file is removed only under its content lock and
/// only if no blob row uses its hash, so it never races an upload of the same content.
struct BlobReclaimer: Sendable {
    let store: DeliveryStore
    let blobs: BlobDirectory
    let log: Log

    /// Removes the file of each hash no row uses any more; returns how many files went. Failures
    /// are logged and left to the orphan sweep.
    @discardableResult
    func release(_ hashes: [[UInt8]]) -> Int {
        var removed = 0
        for hash in hashes {
            do {
                let gone = try store.withContentLock(sha256: hash) { referenced in
                    guard !referenced else { return false }
                    try blobs.removeContent(sha256: hash)
                    return true
                }
                if gone { removed += 1 }
            } catch {
                log.warning("blob file removal failed", ["error": String(describing: error)])
            }
        }
        return removed
    }

    /// Deletes up to `limit` files that no row accounts for and that were last written before
    /// `cutoff`: content files whose rows were deleted by a process that stopped before removing
    /// them (or by a conversation's deletion), and temporary files of uploads a crash cut short.
    func sweepOrphans(modifiedBefore cutoff: Date, limit: Int) throws -> Int {
        var removed = 0
        for path in blobs.staleTemporaryFiles(modifiedBefore: cutoff) where removed < limit {
            try BlobFile.remove(path)
            removed += 1
        }
        let candidates = blobs.contentFiles(modifiedBefore: cutoff)
        var start = 0
        while start < candidates.count, removed < limit {
            let chunk = Array(candidates[start..<min(candidates.count, start + 500)])
            start += chunk.count
            let used = try store.referencedContent(chunk)
            let orphans = chunk.filter { !used.contains($0) }.prefix(limit - removed)
            removed += release(Array(orphans))
        }
        return removed
    }
}

/// Retention of blob rows (`RetentionStep` "blobs"): a blob no message links to is deleted once
/// it is older than the message TTL cutoff or older than `unlinkedLifetime` (an upload never
/// attached, or whose messages have expired), whichever is more recent. Rows go first, in one
/// short transaction; their files after it commits.
struct BlobRetention: RetentionStep {
    /// An upload not attached to any message within this time is deleted.
    static let unlinkedLifetime: TimeInterval = 86_400

    let reclaimer: BlobReclaimer
    let now: @Sendable () -> Date

    var name: String { "blobs" }

    func purgeBatch(createdBefore cutoff: Date, limit: Int) throws -> Int {
        let before = max(cutoff, now().addingTimeInterval(-Self.unlinkedLifetime))
        let purged = try reclaimer.store.purgeUnlinkedBlobs(createdBefore: before, limit: limit)
        reclaimer.release(purged.hashes)
        return purged.deleted
    }
}

/// The orphan sweep (`RetentionStep` "blob_files"): files with no row, untouched for `grace`.
struct BlobFileSweep: RetentionStep {
    /// Older than any upload in progress can be (each write refreshes a temporary file's time).
    static let grace: TimeInterval = 3600

    let reclaimer: BlobReclaimer
    let now: @Sendable () -> Date

    var name: String { "blob_files" }

    func purgeBatch(createdBefore cutoff: Date, limit: Int) throws -> Int {
        try reclaimer.sweepOrphans(modifiedBefore: now().addingTimeInterval(-Self.grace), limit: limit)
    }
}
