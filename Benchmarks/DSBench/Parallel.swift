import Dispatch
import Foundation
import Synchronization

/// CPU-bound preparation (token signing, KeyPackage generation) on every core.
enum Parallel {
    /// `transform(0..<count)` in index order, computed in contiguous chunks on all cores.
    static func map<T: Sendable>(_ count: Int, _ transform: @Sendable (Int) throws -> T) throws -> [T] {
        let chunkCount = min(count, 64)
        guard chunkCount > 0 else { return [] }
        let chunks = Mutex<[Int: Result<[T], any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = (count * chunk / chunkCount)..<(count * (chunk + 1) / chunkCount)
            let result = Result { try range.map(transform) }
            chunks.withLock { $0[chunk] = result }
        }
        let done = chunks.withLock { $0 }
        return try (0..<chunkCount).flatMap { try done[$0]!.get() }
    }
}
