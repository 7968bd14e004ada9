/// A JSON array read front to back; `element` is the tape index of the next element.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let path: JSONCodingPath
    let count: Int?
    private(set) var currentIndex = 0
    private var element: Int

    init(decoder: JSONTapeDecoder, array: Int, path: JSONCodingPath) {
        self.decoder = decoder
        self.path = path
        count = decoder.tape.nodes[array].count
        element = array + 1
    }

    var codingPath: [any CodingKey] { path.keys }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    /// Moves past the next element and returns its tape index.
    private mutating func advance(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(
                codingPath: JSONCodingPath.index(currentIndex, path).keys, debugDescription: "Unkeyed container is at end."))
        }
        let node = element
        element = decoder.tape.nodes[node].next
        currentIndex += 1
        return node
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.tape.nodes[element].kind == .null else { return false }
        _ = try advance(Never.self)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let at = currentIndex
        return try decoder.readBool(at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let at = currentIndex
        return try decoder.readString(at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        let at = currentIndex
        return try decoder.read(type, at: try advance(type), path: .index(at, path))
    }


    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let at = currentIndex
        return try decoder.decode(T.self, at: try advance(type), path: .index(at, path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let at = currentIndex
        let node = try advance([String: Any].self)
        try decoder.expect(.object, at: node, as: [String: Any].self, path: .index(at, path))
        return KeyedDecodingContainer(JSONKeyedContainer<NestedKey>(decoder: decoder, object: node, path: .index(at, path)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let at = currentIndex
        let node = try advance([Any].self)
        try decoder.expect(.array, at: node, as: [Any].self, path: .index(at, path))
        return JSONUnkeyedContainer(decoder: decoder, array: node, path: .index(at, path))
    }

    mutating func superDecoder() throws -> any Decoder {
        let at = currentIndex
        let node = try advance(Any.self)
        return JSONTapeDecoder(tape: decoder.tape, index: node, path: .index(at, path), objects: decoder.objects)
    }
}
