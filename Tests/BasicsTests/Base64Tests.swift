import Foundation
import XCTest
@testable import Basics

final class Base64Tests: XCTestCase {
    func testRoundTripsEveryLengthAgainstFoundation() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            let padded = Base64.encode(bytes)
            XCTAssertEqual(padded, Data(bytes).base64EncodedString(), "length \(length)")
            let unpadded = Base64.encode(bytes, padding: false)
            XCTAssertEqual(unpadded, padded.replacingOccurrences(of: "=", with: ""))
            XCTAssertEqual(Base64.decode(padded), bytes)
            XCTAssertEqual(Base64.decode(unpadded), bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 250))
        }
        XCTAssertEqual(Base64.decode("+/+/"), [0xFB, 0xFF, 0xBF])
    }

    func testAppendsAfterExistingBytes() {
        var out = Array("x:".utf8)
        Base64.append([0xFF, 0xEE], padding: true, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x:/+4=")
    }

    func testWritesInPlace_WhatEncodeReturns() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }
            for padding in [true, false] {
                for alphabet in [Base64.Alphabet.standard, .url] {
                    let count = Base64.encodedLength(of: length, padding: padding)
                    // One guard byte each side: the write stays inside its room.
                    var room = [UInt8](repeating: 0xEE, count: count + 2)
                    room.withUnsafeMutableBufferPointer { room in
                        bytes.withUnsafeBufferPointer { Base64.write($0, padding: padding, alphabet: alphabet, into: room.baseAddress! + 1) }
                    }
                    XCTAssertEqual(room.first, 0xEE)
                    XCTAssertEqual(room.last, 0xEE)
                    XCTAssertEqual(String(decoding: room.dropFirst().dropLast(), as: UTF8.self),
                                   Base64.encode(bytes, padding: padding, alphabet: alphabet), "length \(length)")
                }
            }
        }
    }

    func testDecodesFromASlice() {
        let text = Array("[AAEC]".utf8)
        XCTAssertEqual(Base64.decode(utf8: text[1..<5]), [0, 1, 2])
    }

    func testMalformedIsRefused() {
        let bad = [
            "A", "AAAAA", "A===", "====", "AA=", "AA=A", "=AAA", "AB==", "AAB=", "AA\nA", "AA A", "AA-_", "AAA\u{e9}",
            "AAAA====",
        ]
        for text in bad {
            XCTAssertNil(Base64.decode(text), text)
        }
        XCTAssertEqual(Base64.decode(""), [])
        XCTAssertEqual(Base64.decode("AA=="), [0])
        XCTAssertEqual(Base64.decode("AAA="), [0, 0])
    }
}

/// The table-driven coder against the per-character arithmetic one it replaced, kept here as the
/// reference: the same bytes out, and the same refusals, for every input.
final class Base64ReferenceTests: XCTestCase {
    func testDecodeAgreesWithTheReferenceOnRandomText() {
        var random = SplitMix64(seed: 0x15)
        // Mostly the alphabet, with padding and bytes outside it often enough to hit every refusal.
        let pool = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
            + Array("====-_ \n".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        for round in 0..<200_000 {
            let length = Int(random.next() % 30)
            let text = (0..<length).map { _ in
                random.next() % 4 == 0 ? pool[Int(random.next() % UInt64(pool.count))] : pool[Int(random.next() % 64)]
            }
            XCTAssertEqual(Base64.decode(utf8: text[...]), ReferenceBase64.decode(text[...]), "round \(round): \(text)")
            // The URL alphabet is the same coder with `-_` for `+/`.
            let url = text.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
            let standardOnly = text.contains(UInt8(ascii: "-")) || text.contains(UInt8(ascii: "_"))
            if !standardOnly {
                XCTAssertEqual(Base64.decode(utf8: url[...], alphabet: .url), ReferenceBase64.decode(text[...]), "round \(round)")
            }
        }
    }

    func testEncodeAgreesWithTheReference() {
        var random = SplitMix64(seed: 0x16)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            for padding in [true, false] {
                var reference: [UInt8] = Array("x".utf8)
                ReferenceBase64.append(bytes, padding: padding, to: &reference)
                var out: [UInt8] = Array("x".utf8)
                Base64.append(bytes, padding: padding, to: &out)
                XCTAssertEqual(out, reference, "length \(length)")
                XCTAssertEqual(Base64.encode(bytes, padding: padding), String(decoding: reference.dropFirst(), as: UTF8.self))
            }
        }
    }
}

/// The arithmetic coder `Base64` used before its tables (standard alphabet).
private enum ReferenceBase64 {
    static func append(_ bytes: [UInt8], padding: Bool, to out: inout [UInt8]) {
        let rest = bytes.count % 3
        let length = bytes.count / 3 * 4 + (rest == 0 ? 0 : padding ? 4 : rest + 1)
        var o = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out[o] = character(n >> 18); out[o + 1] = character(n >> 12)
            out[o + 2] = character(n >> 6); out[o + 3] = character(n)
            i += 3
            o += 4
        }
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out[o] = character(n >> 18); out[o + 1] = character(n >> 12)
            if rest == 2 { out[o + 2] = character(n >> 6) }
        }
    }

    static func decode(_ input: ArraySlice<UInt8>) -> [UInt8]? {
        var end = input.endIndex
        if input.count % 4 == 0, input.count >= 4 {
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        let count = end - input.startIndex
        if count % 4 == 1 { return nil }
        let groups = count / 4
        let tail = count % 4
        var out = [UInt8](repeating: 0, count: groups * 3 + (tail == 0 ? 0 : tail - 1))
        var i = input.startIndex
        var o = 0
        for _ in 0..<groups {
            let a = value(input[i]), b = value(input[i + 1]), c = value(input[i + 2]), d = value(input[i + 3])
            if a | b | c | d > 63 { return nil }
            let n = a << 18 | b << 12 | c << 6 | d
            out[o] = UInt8(truncatingIfNeeded: n >> 16); out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
            out[o + 2] = UInt8(truncatingIfNeeded: n)
            i += 4
            o += 3
        }
        switch tail {
        case 2:
            let a = value(input[i]), b = value(input[i + 1])
            if a | b > 63 || b & 0xF != 0 { return nil }
            out[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
        case 3:
            let a = value(input[i]), b = value(input[i + 1]), c = value(input[i + 2])
            if a | b | c > 63 || c & 0x3 != 0 { return nil }
            let n = a << 12 | b << 6 | c
            out[o] = UInt8(truncatingIfNeeded: n >> 10); out[o + 1] = UInt8(truncatingIfNeeded: n >> 2)
        default:
            break
        }
        return out
    }

    private static func character(_ n: UInt32) -> UInt8 {
        let v = UInt8(truncatingIfNeeded: n & 63)
        switch v {
        case 0..<26: return v &+ UInt8(ascii: "A")
        case 26..<52: return v &+ (UInt8(ascii: "a") &- 26)
        case 52..<62: return v &- (52 &- UInt8(ascii: "0"))
        case 62: return UInt8(ascii: "+")
        default: return UInt8(ascii: "/")
        }
    }

    private static func value(_ c: UInt8) -> UInt32 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c &- UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c &- UInt8(ascii: "a")) &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c &- UInt8(ascii: "0")) &+ 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: 0xFF
        }
    }
}
