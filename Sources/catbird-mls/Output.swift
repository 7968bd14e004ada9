import Foundation
import MLSClient

/// Human-readable lines on stdout, JSON with --json, progress on stderr.
enum Output {
    static func progress(_ line: String) {
        FileHandle.standardError.write(Data("… \(line)\n".utf8))
    }

    static func line(_ text: String) {
        print(text)
    }

    static func json(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
    }

    /// `[seq] sender: text`, with this user shown as `me`.
    static func describe(_ entry: ChatEntry, me: String) -> String {
        let who = entry.own || entry.sender == me ? "me" : entry.sender
        let seq = entry.seq.map { "[\($0)] " } ?? ""
        switch entry.kind {
        case .message: return "\(seq)\(who): \(entry.text)"
        case .event: return "\(seq)* \(who) \(entry.text) (epoch \(entry.epoch))"
        }
    }
}
