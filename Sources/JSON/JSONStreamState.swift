import Basics
/// The output and open-container stack of a `JSONStreamEncoder`, kept in one struct so that each
/// Codable call touches the encoder's storage once (every access to a class property is checked
/// for exclusivity at run time).

struct JSONStreamState {
    private struct Frame {
        var isObject: Bool
        var serial: Int
        var count: Int
    }

    let output = JSONOutput()
    private var frames: [Frame] = []
    /// `frames.count` when the value now being encoded began; its own container, if any, sits there.
    private(set) var valueBase = 0
    /// The current value position already holds a scalar or a container.
    private(set) var valueWritten = false
    private var nextSerial = 1
    /// The first reason the output cannot be trusted.
    private(set) var failure: String?

    mutating func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    // MARK: Containers

    /// Opens a container at the current value position, or returns the one already open there
    /// (asking twice for the same container is allowed). 0, a serial no container has, when the
    /// position already holds something else.
    mutating func openContainer(object: Bool) -> Int {
        if valueWritten {
            if frames.count > valueBase, frames[valueBase].isObject == object {
                closeFrames(downTo: valueBase + 1)
                return frames[valueBase].serial
            }
            fail("a second container was requested for a value that already has one of another kind")
            return 0
        }
        valueWritten = true
        return push(object: object)
    }

    /// Writes the opening bracket of a container and returns its serial.
    mutating func push(object: Bool) -> Int {
        output.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        let serial = nextSerial
        nextSerial += 1
        frames.append(Frame(isObject: object, serial: serial, count: 0))
        return serial
    }

    mutating func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            output.append(frames.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Makes container `serial` the innermost open one and starts its next member: the comma,
    /// and for objects the key. False (and the encoding failed) when that container was closed.
    mutating func beginMember(of serial: Int, key: String?) -> Bool {
        var depth = frames.count - 1
        while depth >= valueBase, frames[depth].serial != serial { depth -= 1 }
        guard depth >= valueBase else {
            fail("a container was written to after a later value closed it")
            return false
        }
        closeFrames(downTo: depth + 1)
        if frames[depth].count > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        if let key { JSONWriter.appendKey(key, to: output) }
        return true
    }

    /// Claims the current value position for a scalar; false (and the encoding failed) when it is taken.
    mutating func beginSingleValue() -> Bool {
        guard !valueWritten, frames.count == valueBase else {
            fail("a single value was encoded where a value was already encoded")
            return false
        }
        valueWritten = true
        return true
    }

    /// Starts a nested value at the member just begun; returns what `endValue` restores.
    mutating func beginValue() -> (base: Int, written: Bool) {
        defer {
            valueBase = frames.count
            valueWritten = false
        }
        return (valueBase, valueWritten)
    }

    mutating func endValue(restoring saved: (base: Int, written: Bool)) {
        closeFrames(downTo: valueBase)
        // A value that encodes nothing is an empty object, as with Foundation's encoder.
        if !valueWritten { output.append("{}") }
        valueBase = saved.base
        valueWritten = saved.written
    }

    // MARK: Scalars

    mutating func write(_ value: Bool) {
        JSONWriter.appendBool(value, to: output)
    }

    mutating func writeNull() {
        JSONWriter.appendNull(to: output)
    }

    mutating func write(_ value: String) {
        JSONWriter.appendString(value, to: output)
    }

    mutating func write(strings: [String]) {
        JSONWriter.appendStrings(strings, to: output)
    }

    /// `ATBytes`' own encoding, `{"$bytes":"<base64, no padding>"}`, written directly.
    mutating func write(bytes: ATBytes) {
        JSONWriter.appendBytes(bytes, to: output)
    }

    mutating func write<T: FixedWidthInteger>(integer value: T) {
        JSONWriter.appendInteger(value, to: output)
    }

    /// A `JSONObjectEncodable` value, written by its own `encode(json:)` into this output.
    mutating func write(object value: some JSONObjectEncodable) {
        var writer = JSONObjectWriter(into: output)
        value.encode(json: &writer)
        writer.finish()
    }

    /// False for NaN and infinities, which JSON cannot carry.
    mutating func write<T: BinaryFloatingPoint & CustomStringConvertible>(float value: T) -> Bool {
        guard value.isFinite else {
            fail("non-finite number")
            return false
        }
        JSONWriter.appendNumber(value.description, to: output)
        return true
    }
}
