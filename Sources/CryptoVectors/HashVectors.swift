import Foundation
import MLSVectors
import Primitives

/// NIST CAVP SHA-3 and SHAKE files (cryptography-vectors `hashes/SHA3`, `hashes/SHAKE`): short and
/// long messages, Monte Carlo, and SHAKE's variable output lengths, against the native Keccak.
enum HashVectors {
    static let files: [CryptoVectorFile] =
        [224, 256, 384, 512].flatMap { bits in
            ["ShortMsg", "LongMsg", "Monte"].map { kind in
                CryptoVectorFile(path: "cryptography-vectors/hashes/SHA3/SHA3_\(bits)\(kind).rsp") { data in
                    try sha3(data, bytes: bits / 8, monte: kind == "Monte")
                }
            }
        } + [128, 256].flatMap { bits in
            ["ShortMsg", "LongMsg", "VariableOut", "Monte"].map { kind in
                CryptoVectorFile(path: "cryptography-vectors/hashes/SHAKE/SHAKE\(bits)\(kind).rsp") { data in
                    kind == "Monte" ? try shakeMonte(data, bits: bits) : try shake(data, bits: bits)
                }
            }
        }

    static func shakeHash(bits: Int, _ message: [UInt8], count: Int) -> [UInt8] {
        bits == 128 ? SHAKE128.hash(message, count: count) : SHAKE256.hash(message, count: count)
    }

    /// Len is in bits; Len = 0 writes the message as "00".
    static func message(_ record: RSPFile.Record) throws -> [UInt8] {
        let length = try record.int("Len")
        let bytes = try record.hex("Msg")
        guard length % 8 == 0, length / 8 <= bytes.count else { throw VectorMismatch("bit-oriented message") }
        return Array(bytes.prefix(length / 8))
    }

    static func sha3(_ data: Data, bytes: Int, monte: Bool) throws -> CryptoVectorOutcome {
        let file = try RSPFile(data)
        var outcome = CryptoVectorOutcome()
        if monte {
            // SHA-3 Monte Carlo (SHA3VS §6.2.3): MD_i = SHA3(MD_{i-1}), 1000 per checkpoint.
            guard let seedRecord = file.records.first(where: { $0.fields["Seed"] != nil }) else { throw VectorMismatch("no Seed") }
            var md = try seedRecord.hex("Seed")
            for record in file.records where record.fields["MD"] != nil {
                outcome.check("COUNT \(record.fields["COUNT"] ?? "?")") {
                    for _ in 0..<1000 { md = SHA3.hash(md, outputSize: bytes) }
                    try VectorJSON.expect(md, try record.hex("MD"), "MD")
                }
            }
            return outcome
        }
        for record in file.records where record.fields["MD"] != nil {
            outcome.check("Len \(record.fields["Len"] ?? "?")") {
                try VectorJSON.expect(SHA3.hash(try message(record), outputSize: bytes), try record.hex("MD"), "MD")
            }
        }
        return outcome
    }

    /// ShortMsg/LongMsg (fixed `[Outputlen]`) and VariableOut (`Outputlen` per record), in bits.
    static func shake(_ data: Data, bits: Int) throws -> CryptoVectorOutcome {
        let file = try RSPFile(data)
        var outcome = CryptoVectorOutcome()
        for record in file.records where record.fields["Output"] != nil {
            outcome.check("COUNT \(record.fields["COUNT"] ?? record.fields["Len"] ?? "?")") {
                let outputBits = try record.int("Outputlen")
                guard outputBits % 8 == 0 else { throw VectorMismatch("bit-oriented output") }
                let input = record.fields["Len"] != nil ? try message(record) : try record.hex("Msg")
                try VectorJSON.expect(shakeHash(bits: bits, input, count: outputBits / 8), try record.hex("Output"), "Output")
            }
        }
        return outcome
    }

    /// SHAKE Monte Carlo (SHA3VS §6.3.3): the next message is the leftmost 128 bits of the last
    /// output (zero-padded), and the next output length comes from its rightmost 16 bits.
    static func shakeMonte(_ data: Data, bits: Int) throws -> CryptoVectorOutcome {
        let file = try RSPFile(data)
        var outcome = CryptoVectorOutcome()
        guard let first = file.records.first(where: { $0.fields["Msg"] != nil }) else { throw VectorMismatch("no Msg") }
        let minBytes = try first.int("Minimum Output Length (bits)") / 8
        let maxBytes = try first.int("Maximum Output Length (bits)") / 8
        var output = try first.hex("Msg")
        var outputLength = maxBytes
        for record in file.records where record.fields["Output"] != nil {
            outcome.check("COUNT \(record.fields["COUNT"] ?? "?")") {
                for _ in 0..<1000 {
                    var message = Array(output.prefix(16))
                    message += [UInt8](repeating: 0, count: 16 - message.count)
                    output = shakeHash(bits: bits, message, count: outputLength)
                    let rightmost = Int(output[output.count - 2]) << 8 | Int(output[output.count - 1])
                    outputLength = minBytes + rightmost % (maxBytes - minBytes + 1)
                }
                try VectorJSON.expect(output, try record.hex("Output"), "Output")
            }
        }
        return outcome
    }
}
