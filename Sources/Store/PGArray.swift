import Foundation

/// An element type that can travel inside a one-dimensional PostgreSQL array.
public protocol PGArrayElement: PGBindable {
    static var pgElementType: PGType { get }
    static var pgArrayType: PGType { get }
    /// The length of the element's binary form (its `*send` output).
    var pgBinaryLength: Int { get }
    /// Writes the element's binary form into `buffer`, exactly `pgBinaryLength` bytes: in place,
    /// since a batch statement's arrays hold thousands of elements and a buffer each would be most
    /// of their cost.
    func writePGBinary(to buffer: UnsafeMutableRawBufferPointer)
}

/// A one-dimensional array parameter, e.g. `WHERE id = ANY($1)` with `PGArray(ids)`.
/// A wrapper rather than a conformance on `Array`, because `[UInt8]` already binds as bytea.
public struct PGArray<Element: PGArrayElement>: PGBindable {
    public var elements: [Element?]

    public init(_ elements: [Element]) { self.elements = elements }
    public init(_ elements: [Element?]) { self.elements = elements }

    /// The binary form read by `array_recv`: ndim, has-null flag, element OID, then per dimension
    /// its size and lower bound, then each element as a length (-1 for NULL) and its bytes. Sized
    /// first, then written into one buffer.
    public var pgBinding: PGBinding {
        var size = elements.isEmpty ? 12 : 20
        var hasNull = false
        for element in elements {
            size += 4 + (element?.pgBinaryLength ?? 0)
            if element == nil { hasNull = true }
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            func put(_ value: Int32) {
                out.storeBytes(of: value.bigEndian, toByteOffset: offset, as: Int32.self)
                offset += 4
            }
            put(elements.isEmpty ? 0 : 1)
            put(hasNull ? 1 : 0)
            put(Int32(bitPattern: Element.pgElementType.rawValue))
            if !elements.isEmpty {
                put(Int32(elements.count))
                put(1)
            }
            for element in elements {
                guard let element else {
                    put(-1)
                    continue
                }
                let length = element.pgBinaryLength
                put(Int32(length))
                element.writePGBinary(to: UnsafeMutableRawBufferPointer(rebasing: out[offset..<offset + length]))
                offset += length
            }
            precondition(offset == size, "an array element wrote other than its length")
            initialized = size
        }
        return PGBinding(type: Element.pgArrayType, format: .binary, bytes: bytes)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// A fixed-width integer in network order, filling the buffer.
    fileprivate func storeBigEndian<T: FixedWidthInteger>(_ value: T) {
        storeBytes(of: value.bigEndian, as: T.self)
    }

    fileprivate func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let base = baseAddress, let source = bytes.baseAddress, !bytes.isEmpty else { return }
        base.copyMemory(from: source, byteCount: bytes.count)
    }
}

extension Int64: PGArrayElement {
    public static var pgElementType: PGType { .int8 }
    public static var pgArrayType: PGType { .int8Array }
    public var pgBinaryLength: Int { 8 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer.storeBigEndian(self) }
}

extension Int32: PGArrayElement {
    public static var pgElementType: PGType { .int4 }
    public static var pgArrayType: PGType { .int4Array }
    public var pgBinaryLength: Int { 4 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer.storeBigEndian(self) }
}

extension Int: PGArrayElement {
    public static var pgElementType: PGType { .int8 }
    public static var pgArrayType: PGType { .int8Array }
    public var pgBinaryLength: Int { 8 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer.storeBigEndian(Int64(self)) }
}

extension Bool: PGArrayElement {
    public static var pgElementType: PGType { .bool }
    public static var pgArrayType: PGType { .boolArray }
    public var pgBinaryLength: Int { 1 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer[0] = self ? 1 : 0 }
}

/// Inside an array a string must have a declared type; it is text.
extension String: PGArrayElement {
    public static var pgElementType: PGType { .text }
    public static var pgArrayType: PGType { .textArray }
    public var pgBinaryLength: Int { utf8.count }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) {
        var text = self
        text.withUTF8 { buffer.copy(UnsafeRawBufferPointer($0)) }
    }
}

extension Data: PGArrayElement {
    public static var pgElementType: PGType { .bytea }
    public static var pgArrayType: PGType { .byteaArray }
    public var pgBinaryLength: Int { count }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { withUnsafeBytes { buffer.copy($0) } }
}

extension UUID: PGArrayElement {
    public static var pgElementType: PGType { .uuid }
    public static var pgArrayType: PGType { .uuidArray }
    public var pgBinaryLength: Int { 16 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { pgBinding.bytes.withUnsafeBytes { buffer.copy($0) } }
}

extension Date: PGArrayElement {
    public static var pgElementType: PGType { .timestamptz }
    public static var pgArrayType: PGType { .timestamptzArray }
    public var pgBinaryLength: Int { 8 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer.storeBigEndian(PGTimestamp.microseconds(from: self)) }
}

extension Double: PGArrayElement {
    public static var pgElementType: PGType { .float8 }
    public static var pgArrayType: PGType { .float8Array }
    public var pgBinaryLength: Int { 8 }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { buffer.storeBigEndian(bitPattern) }
}

/// bytea elements, e.g. `PGArray([hashA, hashB])`.
extension Array: PGArrayElement where Element == UInt8 {
    public static var pgElementType: PGType { .bytea }
    public static var pgArrayType: PGType { .byteaArray }
    public var pgBinaryLength: Int { count }
    public func writePGBinary(to buffer: UnsafeMutableRawBufferPointer) { withUnsafeBytes { buffer.copy($0) } }
}
