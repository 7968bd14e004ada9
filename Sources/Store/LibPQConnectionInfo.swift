import Foundation
import CLibPQ

/// Parses connection strings with `PQconninfoParse` (URI or key=value form).
public enum LibPQConnectionInfo {
    /// The options the string sets, in libpq's keyword order. Throws for a malformed string.
    public static func parse(_ connectionString: String) throws(StoreError) -> [(String, String)] {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            defer { if let errorMessage { PQfreemem(errorMessage) } }
            let reason = errorMessage.map { String(cString: $0).trimmingTrailingNewlines() } ?? "out of memory"
            throw .invalidConfiguration(reason)
        }
        defer { PQconninfoFree(options) }
        var pairs: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { pairs.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        return pairs
    }

    /// A key=value connection string, quoting each value as libpq requires.
    public static func keyValueString(_ pairs: [(String, String)]) -> String {
        pairs.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(escaped)'"
        }.joined(separator: " ")
    }
}
