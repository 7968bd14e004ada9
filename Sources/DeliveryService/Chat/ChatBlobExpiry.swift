import DeliveryStore
import Foundation

/// The maintenance step of the chat contract's blobs: every chat blob dead by the service's clock
/// (a reservation whose ticket expired, an upload nothing bound within the hour, an avatar a newer
/// snapshot replaced, an upload a crash cut short) is ended, its quota returned, and its content
/// file removed unless another blob, of either contract, stores the same bytes.
struct ChatBlobExpiry: Sendable {
    let reclaimer: BlobReclaimer
    let clock: @Sendable () -> Date
    var batchSize = 500

    /// Ends every dead blob, in batches; returns how many.
    @discardableResult
    func runOnce() throws -> Int {
        var total = 0
        while true {
            let (ended, hashes) = try reclaimer.store.endExpiredChatBlobs(now: clock(), limit: batchSize)
            reclaimer.release(hashes)
            total += ended
            if ended < batchSize { return total }
        }
    }
}
