import Foundation
import MLSVectors

/// A NIST CAVP/KAT response file: `[Header = value]` lines set parameters for the records after
/// them; records are runs of `key = value` lines, separated by blank lines or by a key recurring;
/// `#` starts a comment.
struct RSPFile {
    struct Record {
        var fields: [String: String]
        /// The bracketed parameters in force where the record starts.
        var headers: [String: String]

        func hex(_ key: String) throws -> [UInt8] {
            guard let value = fields[key] else { throw VectorMismatch("missing field \(key)") }
            return try VectorJSON.bytes(fromHex: value)
        }

        func int(_ key: String) throws -> Int {
            guard let value = fields[key] ?? headers[key], let number = Int(value) else { throw VectorMismatch("missing number \(key)") }
            return number
        }
    }

    var records: [Record] = []

    init(_ data: Data) throws {
        guard let text = String(data: data, encoding: .utf8) else { throw VectorMismatch("not UTF-8") }
        var headers: [String: String] = [:]
        var current: [String: String] = [:]
        func flush() {
            if !current.isEmpty { records.append(Record(fields: current, headers: headers)) }
            current = [:]
        }
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { flush(); continue }
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                flush()
                let inner = line.dropFirst().dropLast()
                let parts = inner.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { headers[parts[0]] = parts[1] }
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            // Some files (the ML-KEM KAT) do not separate records by blank lines: a key seen again
            // starts the next record.
            if current[parts[0]] != nil { flush() }
            current[parts[0]] = parts[1]
        }
        flush()
    }
}
