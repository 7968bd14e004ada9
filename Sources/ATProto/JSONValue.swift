import Foundation

/// Untyped JSON, so each claim's type can be checked where its rule lives rather than failing the
/// whole document at once. Booleans and numbers stay distinct (`true` is never the number 1).
enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses a JSON object; nil for anything else (arrays, scalars, malformed text).
    static func parseObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return nil }
        return object
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}
