// libFuzzer target for commit validation; built by scripts/fuzz.sh, not by SwiftPM. The input is a
// commit (MLSMessage bytes) for one stored group state (Tests/Fuzz/commit-state.bin, a serialized
// PublicGroup with a pending proposal, written with its seeds by `scripts/fuzz.sh seed`).
// PublicGroup.validateAndApply must refuse it with an error or accept it, never crash or hang; an
// accepted next state must serialize and restore to the same state, as the service stores it.
import Foundation
import MLS

private let state: PublicGroup = {
    let path = ProcessInfo.processInfo.environment["FUZZ_COMMIT_STATE"] ?? "Tests/Fuzz/commit-state.bin"
    guard let data = FileManager.default.contents(atPath: path), let group = try? PublicGroup(serialized: Array(data)) else {
        fatalError("cannot read the stored PublicGroup at \(path): run scripts/fuzz.sh seed")
    }
    return group
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? MLSMessage(decoding: bytes), let next = try? state.validateAndApply(commit: message) else { return 0 }
    precondition(next.epoch == state.epoch + 1, "an accepted commit moves exactly one epoch")
    let restored = try! PublicGroup(serialized: next.serialize())
    precondition(restored.groupContext == next.groupContext && restored.tree == next.tree
                 && restored.interimTranscriptHash == next.interimTranscriptHash, "the stored state does not restore")
    return 0
}
