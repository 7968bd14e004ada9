import Foundation
import Synchronization

/// Structured logs: one JSON object per line on standard error. Never pass tokens, ciphertext or key
/// material; DIDs only at debug level.
public struct Log: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public let minimum: Level
    private static let output = Mutex(())

    public init(minimum: Level) { self.minimum = minimum }

    public func isEnabled(_ level: Level) -> Bool { level >= minimum }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(level, message, fields: fields.map { ($0.key, $0.value) })
    }

    public func log(_ level: Level, _ message: String, fields: [(String, String)]) {
        guard level >= minimum else { return }
        let data = Data(Self.line(level: level, message: message, fields: fields, date: Date()))
        Self.output.withLock { _ in FileHandle.standardError.write(data) }
    }

    /// One JSON object and a line feed; keys and values are JSON-escaped, so no field can break the line.
    static func line(level: Level, message: String, fields: [(String, String)], date: Date) -> [UInt8] {
        var line: [UInt8] = Array("{\"ts\":".utf8)
        JSONText.appendString(Timestamp.rfc3339(date), to: &line)
        line.append(contentsOf: Array(",\"level\":".utf8))
        JSONText.appendString(level.name, to: &line)
        line.append(contentsOf: Array(",\"msg\":".utf8))
        JSONText.appendString(message, to: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            JSONText.appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            JSONText.appendString(value, to: &line)
        }
        line.append(contentsOf: Array("}\n".utf8))
        return line
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { log(.error, message, fields) }
}
