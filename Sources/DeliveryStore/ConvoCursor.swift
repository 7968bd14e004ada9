import Foundation

/// The opaque cursor of `listConvos`: the last row's sort key, activity time in microseconds
/// since 1970 and convo_id, as base64url of `v1 <micros> <convo_id>`.
struct ConvoCursor: Equatable {
    var activityMicros: Int64
    var convoID: String

    var encoded: String {
        Data("v1 \(activityMicros) \(convoID)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Parses a cursor; `invalidCursor` for anything this type did not produce.
    init(parsing text: String) throws(DeliveryStoreError) {
        guard !text.isEmpty, text.count <= 1024,
              text.utf8.allSatisfy({ Self.alphabet.contains($0) }) else { throw .invalidCursor }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: throw .invalidCursor
        }
        guard let data = Data(base64Encoded: base64),
              let decoded = String(data: data, encoding: .utf8) else { throw .invalidCursor }
        let parts = decoded.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1",
              parts[1].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }),
              let micros = Int64(parts[1]),
              !parts[2].isEmpty, parts[2].count <= 510,
              parts[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { throw .invalidCursor }
        activityMicros = micros
        convoID = String(parts[2])
    }

    init(activityMicros: Int64, convoID: String) {
        self.activityMicros = activityMicros
        self.convoID = convoID
    }

    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
