import Basics
/// `Encoder` that writes JSON text as values are encoded, with no intermediate tree.
///
/// Codable has no "container finished" call, so open containers are kept on a stack and closed
/// when their value's `encode(to:)` returns or when an outer container is written to again. A
/// container written to after it was closed that way (out-of-order use no synthesized conformance
/// makes), or `superEncoder`, fails the encoding with an error rather than writing wrong JSON.
/// It is also the single-value container of the value being encoded.

final class JSONStreamEncoder: Encoder, SingleValueEncodingContainer {
    // Unchecked: every access is a plain read, write or mutating call that never calls out (values
    // encode themselves between accesses, never inside one), so no two accesses can overlap, and
    // the run-time check cost more than any other part of encoding a small object.
    @exclusivity(unchecked) private var state = JSONStreamState()
    @exclusivity(unchecked) private var path: [any CodingKey] = []
    private let objects: JSONObjectCoding
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(objects: JSONObjectCoding = .direct) {
        self.objects = objects
    }

    var codingPath: [any CodingKey] { path }
    var output: [UInt8] { state.output.bytes }

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        if objects == .direct, let objectType = T.self as? any JSONObjectEncodable.Type {
            _ = state.beginSingleValue()
            write(value, as: objectType)
            return
        }
        try value.encode(to: self)
        state.closeFrames(downTo: 0)
        if let failure = state.failure {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: failure))
        }
        guard state.valueWritten else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
    }

    func fail(_ reason: String) {
        state.fail(reason)
    }

    private func failure(_ value: Any) -> EncodingError {
        .invalidValue(value, .init(codingPath: path, debugDescription: state.failure ?? "encoding failed"))
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONKeyedWriter<Key>(encoder: self, serial: state.openContainer(object: true), codingPath: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedWriter(encoder: self, serial: state.openContainer(object: false), codingPath: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Starts the next member of container `serial` (see `JSONStreamState.beginMember`).
    func beginMember(of serial: Int, key: String?) throws {
        guard state.beginMember(of: serial, key: key) else { throw failure(key ?? "") }
    }

    /// Starts the next member of container `serial` and opens a container in it; 0 on failure.
    func beginNestedContainer(in serial: Int, key: String?, object: Bool) -> Int {
        guard state.beginMember(of: serial, key: key) else { return 0 }
        return state.push(object: object)
    }

    /// Encodes a nested value at the member just begun.
    func encodeMember<T: Encodable>(_ value: T, key: @autoclosure () -> any CodingKey) throws {
        // The commonest leaves skip the Encodable round trip (a container box and a metadata lookup each).
        if T.self == String.self {
            state.write(value as! String)
            return
        }
        if T.self == ATBytes.self {
            state.write(bytes: value as! ATBytes)
            return
        }
        if T.self == [String].self {
            state.write(strings: value as! [String])
            return
        }
        if objects == .direct, let objectType = T.self as? any JSONObjectEncodable.Type {
            write(value, as: objectType)
            return
        }
        let saved = state.beginValue()
        path.append(key())
        defer { path.removeLast() }
        do {
            try value.encode(to: self)
        } catch {
            state.fail("encoding failed")
            throw error
        }
        state.endValue(restoring: saved)
    }

    /// A `JSONObjectEncodable` value through its own `encode(json:)`; `T` is `U` itself.
    private func write<T, U: JSONObjectEncodable>(_ value: T, as type: U.Type) {
        state.write(object: value as! U)
    }

    // MARK: Scalars in containers

    func writeNull() { state.writeNull() }
    func write(_ value: Bool) { state.write(value) }
    func write(_ value: String) { state.write(value) }
    // Concrete entry points for the containers (see JSONTapeDecoder.read: no partial specialization).
    func write(_ value: Int) { state.write(integer: value) }
    func write(_ value: Int8) { state.write(integer: value) }
    func write(_ value: Int16) { state.write(integer: value) }
    func write(_ value: Int32) { state.write(integer: value) }
    func write(_ value: Int64) { state.write(integer: value) }
    func write(_ value: UInt) { state.write(integer: value) }
    func write(_ value: UInt8) { state.write(integer: value) }
    func write(_ value: UInt16) { state.write(integer: value) }
    func write(_ value: UInt32) { state.write(integer: value) }
    func write(_ value: UInt64) { state.write(integer: value) }
    func write(_ value: Double) throws { try write(float: value) }
    func write(_ value: Float) throws { try write(float: value) }

    private func write<T: BinaryFloatingPoint & CustomStringConvertible>(float value: T) throws {
        guard state.write(float: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."))
        }
    }

    // MARK: SingleValueEncodingContainer

    private func beginSingleValue(_ value: Any) throws {
        guard state.beginSingleValue() else { throw failure(value) }
    }

    func encodeNil() throws { try beginSingleValue("null"); writeNull() }
    func encode(_ value: Bool) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: String) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: Double) throws { try beginSingleValue(value); try write(value) }
    func encode(_ value: Float) throws { try beginSingleValue(value); try write(value) }
    func encode(_ value: Int) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: Int8) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: Int16) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: Int32) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: Int64) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: UInt) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: UInt8) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: UInt16) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: UInt32) throws { try beginSingleValue(value); write(value) }
    func encode(_ value: UInt64) throws { try beginSingleValue(value); write(value) }
    func encode<T: Encodable>(_ value: T) throws { try value.encode(to: self) }
}

extension JSONStreamEncoder {
    /// Fails `encoder`'s encoding and hands back a detached encoder whose output is never used.
    static func unsupportedSuperEncoder(failing encoder: JSONStreamEncoder) -> any Encoder {
        encoder.fail("superEncoder is not supported by the streaming JSON encoder")
        return JSONStreamEncoder()
    }
}
