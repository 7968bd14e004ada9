import Foundation
import XCTest
@testable import ATProto
@testable import JSON

/// The two strict parsers (`JSONTape` under StrictJSON, `JSONValue` for JWTs) accept and refuse
/// the same documents: random documents from a small grammar, then each mutated byte by byte.
/// Nesting stays shallow, where their depth limits cannot differ. One difference is by design:
/// JSONValue also refuses a number that is not a finite double (or is over 64 characters), which
/// the tape leaves to the field that reads it.
final class JSONParsersAgreeTests: XCTestCase {
    private struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private let strings = [#""""#, #""a""#, #""key""#, #""\u00e9""#, #""é""#, #""\ud83d\ude00""#, #""\n\t\"\\\/""#,
                           #""\u0000""#, #""e\u0301""#, #""\u00E9""#]
    private let scalars = ["0", "-0", "1.5", "-12e3", "1E+2", "true", "false", "null", "123456789012345678901234567890"]

    private func document(_ random: inout Random, depth: Int) -> String {
        switch depth > 3 ? random.next(2) : random.next(4) {
        case 0: return scalars[random.next(scalars.count)]
        case 1: return strings[random.next(strings.count)]
        case 2:
            let members = (0..<random.next(4)).map { _ in
                strings[random.next(strings.count)] + ":" + document(&random, depth: depth + 1)
            }
            return "{" + members.joined(separator: random.next(3) == 0 ? " , " : ",") + "}"
        default:
            return "[" + (0..<random.next(4)).map { _ in document(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    private func accepts(_ bytes: [UInt8]) -> (tape: Bool, value: Bool) {
        let value: Bool
        do {
            _ = try JSONValue.parse(bytes)
            value = true
        } catch .invalidNumber {
            // Agreement unless the tape holds a number that only JSONValue's range rule refuses.
            value = (try? JSONTape(parsing: bytes)).map { tape in
                tape.nodes.contains { node in
                    guard node.kind == .number else { return false }
                    let text = String(decoding: bytes[node.start..<node.end], as: UTF8.self)
                    return text.utf8.count > 64 || !(Double(text)?.isFinite ?? false)
                }
            } ?? false
        } catch {
            value = false
        }
        return ((try? JSONTape(parsing: bytes)) != nil, value)
    }

    func testRandomAndMutatedDocuments() {
        var random = Random(state: 0x15)
        let replacements: [UInt8] = Array(#"{}[],:"\ u0123456789abcdefE+-.tfn"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        var accepted = 0
        for round in 0..<3000 {
            let text = document(&random, depth: 0)
            var bytes = Array(text.utf8)
            let (tape, value) = accepts(bytes)
            XCTAssertEqual(tape, value, "round \(round): \(text)")
            if tape { accepted += 1 }
            for _ in 0..<8 where !bytes.isEmpty {
                var mutated = bytes
                let at = random.next(mutated.count)
                switch random.next(3) {
                case 0: mutated[at] = replacements[random.next(replacements.count)]
                case 1: mutated.remove(at: at)
                default: mutated.insert(replacements[random.next(replacements.count)], at: at)
                }
                let (mutatedTape, mutatedValue) = accepts(mutated)
                XCTAssertEqual(mutatedTape, mutatedValue, "round \(round): \(String(decoding: mutated, as: UTF8.self).debugDescription)")
                bytes = mutated
            }
        }
        XCTAssertGreaterThan(accepted, 1000, "the grammar mostly makes valid documents")
    }
}
