import Basics
/// `Decoder` over a parsed tape. One instance serves a whole decode: descending into a field moves
/// `index` and `path` and restores them afterwards, so nested values cost no decoder allocation.
/// It is also the single-value container of the value it points at.

final class JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
    let tape: JSONTape
    // Unchecked: only `decode(_:at:path:)` writes these, with plain assignments between which the
    // value decodes itself, so no two accesses can overlap (as in JSONStreamEncoder).
    @exclusivity(unchecked) private(set) var index: Int
    @exclusivity(unchecked) private(set) var path: JSONCodingPath
    let objects: JSONObjectCoding
    /// Where the last member lookup (`JSONObjectReader`) ended: in `object`, the key after the
    /// member it found (or the object's end). The next lookup in the same object starts there.
    @exclusivity(unchecked) var memberHint: (object: Int, nextKey: Int) = (-1, 0)
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(tape: JSONTape, index: Int, path: JSONCodingPath, objects: JSONObjectCoding = .direct) {
        self.tape = tape
        self.index = index
        self.path = path
        self.objects = objects
    }

    var codingPath: [any CodingKey] { path.keys }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try expect(.object, at: index, as: [String: Any].self, path: path)
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(decoder: self, object: index, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try expect(.array, at: index, as: [Any].self, path: path)
        return JSONUnkeyedContainer(decoder: self, array: index, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Decodes `T` from the node at `node`, whose path is `path`.
    func decode<T: Decodable>(_ type: T.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> T {
        // The commonest leaves skip the Decodable round trip (a container box and a metadata lookup each).
        if T.self == String.self { return try readString(at: node, path: path()) as! T }
        if T.self == ATBytes.self { return try readBytes(at: node, path: path()) as! T }
        if T.self == [String].self { return try readStrings(at: node, path: path()) as! T }
        if objects == .direct, let objectType = T.self as? any JSONObjectDecodable.Type {
            return try readObject(objectType, as: T.self, at: node, path: path())
        }
        let path = path()
        let savedIndex = index, savedPath = self.path
        index = node
        self.path = path
        defer {
            index = savedIndex
            self.path = savedPath
        }
        return try T(from: self)
    }

    /// A `JSONObjectDecodable` value through its own `init(json:)`; `T` is `U` itself.
    private func readObject<U: JSONObjectDecodable, T>(_ type: U.Type, as: T.Type, at node: Int, path: JSONCodingPath) throws -> T {
        try readObject(U.self, at: node, path: path) as! T
    }

    /// A `JSONObjectDecodable` value through its own `init(json:)`.
    func readObject<T: JSONObjectDecodable>(_ type: T.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> T {
        // What Codable's `container(keyedBy:)` checks first.
        try expect(.object, at: node, as: [String: Any].self, path: path())
        return try T(json: JSONObjectReader(decoder: self, object: node, path: path()))
    }

    /// An array of `JSONObjectDecodable` values, with the checks `Array.init(from:)` makes through
    /// an unkeyed container and, per element, `readObject`'s.
    func readObjects<T: JSONObjectDecodable>(_ type: T.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> [T] {
        try expect(.array, at: node, as: [Any].self, path: path())
        let arrayPath = path()
        var values: [T] = []
        values.reserveCapacity(tape.nodes[node].count)
        var element = node + 1
        while element < tape.nodes[node].next {
            try expect(.object, at: element, as: [String: Any].self, path: .index(values.count, arrayPath))
            values.append(try T(json: JSONObjectReader(decoder: self, object: element, path: arrayPath, element: values.count)))
            element = tape.nodes[element].next
        }
        return values
    }

    // MARK: Reading scalars

    func expect(_ kind: JSONTape.Kind, at node: Int, as type: Any.Type, path: @autoclosure () -> JSONCodingPath) throws {
        let found = tape.nodes[node].kind
        guard found != kind else { return }
        throw mismatch(type, found: found, path: path())
    }

    func mismatch(_ type: Any.Type, found: JSONTape.Kind, path: JSONCodingPath) -> DecodingError {
        let context = DecodingError.Context(codingPath: path.keys, debugDescription: "Expected \(type) but found \(found) instead.")
        return found == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    func readBool(at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Bool {
        switch tape.nodes[node].kind {
        case .true: return true
        case .false: return false
        case let found: throw mismatch(Bool.self, found: found, path: path())
        }
    }

    func readString(at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> String {
        try expect(.string, at: node, as: String.self, path: path())
        return tape.string(at: node)
    }

    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> T {
        try expect(.number, at: node, as: T.self, path: path())
        let number = tape.nodes[node]
        if number.flag, let value: T = integer(number) { return value }
        // An integral number written with a fraction or exponent ("1.0", "1e3") still fits.
        if !number.flag, let double = Double(text(number)), let value = T(exactly: double) { return value }
        throw DecodingError.dataCorrupted(.init(
            codingPath: path().keys, debugDescription: "Parsed JSON number <\(text(number))> does not fit in \(T.self)."))
    }

    func readFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: T.Type, at node: Int, path: @autoclosure () -> JSONCodingPath
    ) throws -> T {
        try expect(.number, at: node, as: T.self, path: path())
        let number = tape.nodes[node]
        guard let value = T(text(number)), value.isFinite else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: path().keys, debugDescription: "Parsed JSON number <\(text(number))> does not fit in \(T.self)."))
        }
        return value
    }

    /// What `ATBytes.init(from:)` reads: `{"$bytes": "<base64>"}` or a plain base64 string.
    func readBytes(at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> ATBytes {
        var text = node
        if tape.nodes[node].kind == .object {
            var member = node + 1
            while member < tape.nodes[node].next, !tape.string(at: member, equals: "$bytes") { member = tape.nodes[member + 1].next }
            guard member < tape.nodes[node].next else {
                throw DecodingError.keyNotFound(ATBytes.CodingKeys.bytes, .init(
                    codingPath: path().keys, debugDescription: "No value associated with key $bytes."))
            }
            text = member + 1
            try expect(.string, at: text, as: String.self, path: .key(ATBytes.CodingKeys.bytes, path()))
        } else {
            try expect(.string, at: text, as: String.self, path: path())
        }
        let string = tape.nodes[text]
        let bytes = string.flag ? Base64.decode(tape.string(at: text)) : Base64.decode(utf8: tape.bytes[string.start..<string.end])
        guard let bytes else {
            throw DecodingError.dataCorrupted(.init(codingPath: path().keys, debugDescription: "invalid base64"))
        }
        return ATBytes(bytes)
    }

    private func text(_ node: JSONTape.Node) -> String {
        String(decoding: tape.bytes[node.start..<node.end], as: UTF8.self)
    }

    /// Digits accumulated towards the sign, so the most negative value parses and overflow is caught.
    private func integer<T: FixedWidthInteger>(_ node: JSONTape.Node) -> T? {
        var position = node.start
        let negative = tape.bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value: T = 0
        while position < node.end {
            let digit = T(tape.bytes[position] &- UInt8(ascii: "0"))
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            value = next
            position += 1
        }
        return value
    }

    // Concrete entry points for the containers: a generic reader called from a container generic
    // over its Key would not be specialized (no partial specialization) and would run slowly.
    func read(_ type: Int.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Int {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: Int8.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Int8 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: Int16.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Int16 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: Int32.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Int32 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: Int64.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Int64 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: UInt.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> UInt {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: UInt8.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> UInt8 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: UInt16.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> UInt16 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: UInt32.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> UInt32 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: UInt64.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> UInt64 {
        try readInteger(type, at: node, path: path())
    }
    func read(_ type: Double.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Double {
        try readFloatingPoint(type, at: node, path: path())
    }
    func read(_ type: Float.Type, at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> Float {
        try readFloatingPoint(type, at: node, path: path())
    }

    /// `[String]` without the generic `Array.init(from:)` (which grows its storage one append at a time).
    func readStrings(at node: Int, path: @autoclosure () -> JSONCodingPath) throws -> [String] {
        try expect(.array, at: node, as: [String].self, path: path())
        var strings: [String] = []
        strings.reserveCapacity(tape.nodes[node].count)
        var element = node + 1
        while element < tape.nodes[node].next {
            strings.append(try readString(at: element, path: .index(strings.count, path())))
            element = tape.nodes[element].next
        }
        return strings
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { tape.nodes[index].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try readBool(at: index, path: path) }
    func decode(_ type: String.Type) throws -> String { try readString(at: index, path: path) }
    func decode(_ type: Double.Type) throws -> Double { try readFloatingPoint(type, at: index, path: path) }
    func decode(_ type: Float.Type) throws -> Float { try readFloatingPoint(type, at: index, path: path) }
    func decode(_ type: Int.Type) throws -> Int { try readInteger(type, at: index, path: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try readInteger(type, at: index, path: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try readInteger(type, at: index, path: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try readInteger(type, at: index, path: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try readInteger(type, at: index, path: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try readInteger(type, at: index, path: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try readInteger(type, at: index, path: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try readInteger(type, at: index, path: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try readInteger(type, at: index, path: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try readInteger(type, at: index, path: path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}
