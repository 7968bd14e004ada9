import Glibc

/// The text one JSON encoding writes, in one growing raw buffer: an append is a capacity check and
/// a store or a copy, without an Array's uniqueness check and reference counting per call (about a
/// quarter of an encoding's instructions before). The stream encoder and every object writer of
/// one encoding share it by reference; it becomes `[UInt8]` once, at the end (`bytes`).
@usableFromInline
final class JSONOutput {
    // Unchecked: one encoding writes its output from one thread, one append at a time, and the
    // run-time exclusivity check of a class's stored property cost more than the appends.
    @exclusivity(unchecked) @usableFromInline private(set) var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var count = 0
    @exclusivity(unchecked) @usableFromInline private(set) var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Where the next `extra` bytes go, with room for them; the caller writes them and adds `extra`
    /// to `count`.
    @inlinable @inline(__always)
    func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity &- count < extra { grow(toFit: extra) }
        return base + count
    }

    @usableFromInline func grow(toFit extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count &+= 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        memcpy(reserve(bytes.count), source, bytes.count)
        count += bytes.count
    }

    func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// What was written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
