import Glibc

/// Values by exact request path, built once: a lookup is one FNV-1a pass over the path's bytes,
/// a probe or two and one `memcmp`. The server asks for a request's route several times (body
/// handling, body limit, blocking, dispatch), and a `Dictionary` keyed by `String` runs SipHash over
/// the whole path each time. The table never changes after `init` and is at most half full, so no
/// input, however chosen, makes a lookup walk more than the longest run of occupied slots the
/// known paths left.
struct PathTable<Value: Sendable>: Sendable {
    /// A slot's path is `paths[start..<start + count]`; `value` indexes `values`, -1 when empty.
    private struct Slot: Sendable {
        var hash: UInt64 = 0
        var start = 0
        var count = 0
        var value = -1
    }

    private let slots: [Slot]
    private let paths: [UInt8]
    private let values: [Value]
    private let mask: Int

    init(_ entries: [(path: String, value: Value)]) {
        var size = 8
        while size < entries.count * 2 { size *= 2 }
        var slots = [Slot](repeating: Slot(), count: size)
        var paths: [UInt8] = []
        for (number, (path, _)) in entries.enumerated() {
            let bytes = Array(path.utf8)
            let hash = bytes.withUnsafeBytes { Self.hash($0) }
            var index = Int(truncatingIfNeeded: hash) & (size - 1)
            while slots[index].value >= 0 {
                precondition(Array(paths[slots[index].start..<slots[index].start + slots[index].count]) != bytes, "duplicate path \(path)")
                index = (index + 1) & (size - 1)
            }
            slots[index] = Slot(hash: hash, start: paths.count, count: bytes.count, value: number)
            paths += bytes
        }
        self.slots = slots
        self.paths = paths
        values = entries.map(\.value)
        mask = size - 1
    }

    subscript(path: String) -> Value? {
        let index = path.utf8.withContiguousStorageIfAvailable { find(UnsafeRawBufferPointer($0)) }
            ?? Array(path.utf8).withUnsafeBytes { find($0) }
        return index.map { values[$0] }
    }

    /// The index in `values` of `path`'s value.
    private func find(_ path: UnsafeRawBufferPointer) -> Int? {
        let hash = Self.hash(path)
        return slots.withUnsafeBufferPointer { slots in
            paths.withUnsafeBytes { paths in
                var index = Int(truncatingIfNeeded: hash) & mask
                while slots[index].value >= 0 {
                    let slot = slots[index]
                    if slot.hash == hash, slot.count == path.count,
                       slot.count == 0 || memcmp(paths.baseAddress! + slot.start, path.baseAddress!, slot.count) == 0 {
                        return slot.value
                    }
                    index = (index + 1) & mask
                }
                return nil
            }
        }
    }

    /// FNV-1a, 64 bits: not a keyed hash, which is fine for a table no request can add to.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
