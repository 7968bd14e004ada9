import Foundation

/// An element type that can travel inside a one-dimensional PostgreSQL array.
public protocol PGArrayElement: PGBindable {
    static var pgElementType: PGType { get }
    static var pgArrayType: PGType { get }
    /// The element's binary form (its `*send` output).
    var pgBinaryBytes: [UInt8] { get }
}

/// A one-dimensional array parameter, e.g. `WHERE id = ANY($1)` with `PGArray(ids)`.
/// A wrapper rather than a conformance on `Array`, because `[UInt8]` already binds as bytea.
public struct PGArray<Element: PGArrayElement>: PGBindable {
    public var elements: [Element?]

    public init(_ elements: [Element]) { self.elements = elements }
    public init(_ elements: [Element?]) { self.elements = elements }

    /// The binary form read by `array_recv`: ndim, has-null flag, element OID, then per dimension
    /// its size and lower bound, then each element as a length (-1 for NULL) and its bytes.
    public var pgBinding: PGBinding {
        // Called through `any PGBindable`, so unspecialized: the generic part only collects each
        // element's bytes, and the layout is written by non-generic code in one sized buffer.
        PGBinding(type: Element.pgArrayType, format: .binary,
                  bytes: pgArrayBytes(elements.map { $0?.pgBinaryBytes }, elementType: Element.pgElementType))
    }
}

/// `array_send`'s layout for one dimension of `bodies` (nil for NULL).
private func pgArrayBytes(_ bodies: [[UInt8]?], elementType: PGType) -> [UInt8] {
    var size = bodies.isEmpty ? 12 : 20
    var hasNull = false
    for body in bodies {
        size += 4 + (body?.count ?? 0)
        if body == nil { hasNull = true }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    bytes.appendBigEndian(Int32(bodies.isEmpty ? 0 : 1))
    bytes.appendBigEndian(Int32(hasNull ? 1 : 0))
    bytes.appendBigEndian(elementType.rawValue)
    if !bodies.isEmpty {
        bytes.appendBigEndian(Int32(bodies.count))
        bytes.appendBigEndian(Int32(1))
    }
    for body in bodies {
        guard let body else {
            bytes.appendBigEndian(Int32(-1))
            continue
        }
        bytes.appendBigEndian(Int32(body.count))
        bytes.append(contentsOf: body)
    }
    return bytes
}

extension Int64: PGArrayElement {
    public static var pgElementType: PGType { .int8 }
    public static var pgArrayType: PGType { .int8Array }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

extension Int32: PGArrayElement {
    public static var pgElementType: PGType { .int4 }
    public static var pgArrayType: PGType { .int4Array }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

extension Int: PGArrayElement {
    public static var pgElementType: PGType { .int8 }
    public static var pgArrayType: PGType { .int8Array }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

extension Bool: PGArrayElement {
    public static var pgElementType: PGType { .bool }
    public static var pgArrayType: PGType { .boolArray }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

/// Inside an array a string must have a declared type; it is text.
extension String: PGArrayElement {
    public static var pgElementType: PGType { .text }
    public static var pgArrayType: PGType { .textArray }
    public var pgBinaryBytes: [UInt8] { Array(utf8) }
}

extension Data: PGArrayElement {
    public static var pgElementType: PGType { .bytea }
    public static var pgArrayType: PGType { .byteaArray }
    public var pgBinaryBytes: [UInt8] { [UInt8](self) }
}

extension UUID: PGArrayElement {
    public static var pgElementType: PGType { .uuid }
    public static var pgArrayType: PGType { .uuidArray }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

extension Date: PGArrayElement {
    public static var pgElementType: PGType { .timestamptz }
    public static var pgArrayType: PGType { .timestamptzArray }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

extension Double: PGArrayElement {
    public static var pgElementType: PGType { .float8 }
    public static var pgArrayType: PGType { .float8Array }
    public var pgBinaryBytes: [UInt8] { pgBinding.bytes }
}

/// bytea elements, e.g. `PGArray([hashA, hashB])`.
extension Array: PGArrayElement where Element == UInt8 {
    public static var pgElementType: PGType { .bytea }
    public static var pgArrayType: PGType { .byteaArray }
    public var pgBinaryBytes: [UInt8] { self }
}
