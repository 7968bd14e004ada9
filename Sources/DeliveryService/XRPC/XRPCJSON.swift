import ATProto
import JSON

/// JSON in and out of XRPC methods, through the JSON module's strict coder (Foundation's costs several times
/// more per request on Linux). Input failures become 400 InvalidRequest naming the field.
public enum XRPCJSON {
    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(XRPCError) -> T {
        try decode(body) { try StrictJSON.decode(T.self, from: body) }
    }

    /// The same for a type that reads itself: no dynamic cast per request to find that out.
    public static func decode<T: JSONObjectDecodable>(_ type: T.Type, from body: [UInt8]) throws(XRPCError) -> T {
        try decode(body) { try StrictJSON.decode(T.self, from: body) }
    }

    private static func decode<T>(_ body: [UInt8], _ decode: () throws -> T) throws(XRPCError) -> T {
        if body.isEmpty { throw .invalidRequest("a JSON body is required") }
        do {
            return try decode()
        } catch let error as JSONParseError {
            throw .invalidRequest(error.reason == .tooDeep ? "JSON nested too deeply" : "invalid JSON body")
        } catch let error as Swift.DecodingError {
            throw .invalidRequest(describe(error))
        } catch {
            throw .invalidRequest("invalid JSON body")
        }
    }

    public static func encode(_ value: any Encodable) throws -> [UInt8] {
        try StrictJSON.encode(value)
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
}
