import Basics
import Foundation

/// Typed access to the fields of a vector case, failing the case with a clear message.
public enum VectorJSON {
    public static func hex(_ object: [String: Any], _ key: String) throws -> [UInt8] {
        guard let string = object[key] as? String else { throw VectorMismatch("missing hex field \(key)") }
        return try bytes(fromHex: string)
    }

    public static func optionalHex(_ object: [String: Any], _ key: String) throws -> [UInt8]? {
        guard let string = object[key] as? String else { return nil }
        return try bytes(fromHex: string)
    }

    public static func int(_ object: [String: Any], _ key: String) throws -> Int {
        guard let number = object[key] as? NSNumber else { throw VectorMismatch("missing number field \(key)") }
        return number.intValue
    }

    public static func string(_ object: [String: Any], _ key: String) throws -> String {
        guard let string = object[key] as? String else { throw VectorMismatch("missing string field \(key)") }
        return string
    }

    public static func object(_ object: [String: Any], _ key: String) throws -> [String: Any] {
        guard let value = object[key] as? [String: Any] else { throw VectorMismatch("missing object field \(key)") }
        return value
    }

    public static func array(_ object: [String: Any], _ key: String) throws -> [Any] {
        guard let value = object[key] as? [Any] else { throw VectorMismatch("missing array field \(key)") }
        return value
    }

    public static func bytes(fromHex string: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(string) else { throw VectorMismatch("malformed hex") }
        return bytes
    }

    /// Throws unless `actual == expected`, naming the field.
    public static func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
        guard actual == expected else { throw VectorMismatch("\(what) differs") }
    }
}

extension Array where Element == UInt8 {
    public var hexString: String { Hex.encode(self) }
}
