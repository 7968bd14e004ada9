import Foundation

/// JSON in and out of XRPC methods. Input failures become 400 InvalidRequest naming the field.
public enum XRPCJSON {
    /// Nesting deeper than this is refused before decoding (Foundation's parser recurses).
    static let maxDepth = 64

    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(XRPCError) -> T {
        if body.isEmpty { throw .invalidRequest("a JSON body is required") }
        guard depthWithinLimit(body) else { throw .invalidRequest("JSON nested too deeply") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as Swift.DecodingError {
            throw .invalidRequest(describe(error))
        } catch {
            throw .invalidRequest("invalid JSON body")
        }
    }

    public static func encode(_ value: any Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static func describe(_ error: Swift.DecodingError) -> String {
        func path(_ context: Swift.DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let prefix = path(context)
            return "missing field \(prefix.isEmpty ? key.stringValue : prefix + "." + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for field \(path(context))"
        case .dataCorrupted(let context):
            let where_ = path(context)
            return where_.isEmpty ? "invalid JSON body" : "invalid value for field \(where_): \(context.debugDescription)"
        @unknown default:
            return "invalid JSON body"
        }
    }

    /// Counts bracket depth outside strings, so hostile nesting never reaches the recursive parser.
    static func depthWithinLimit(_ body: [UInt8]) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == 0x5c { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5b, 0x7b:
                depth += 1
                if depth > maxDepth { return false }
            case 0x5d, 0x7d: depth -= 1
            default: break
            }
        }
        return true
    }
}
