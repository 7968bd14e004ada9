import Basics
import Glibc

/// JSON text output shared by the stream encoder and the object writer: string escaping, number
/// text, `$bytes`.
@usableFromInline
enum JSONWriter {
    private static let hexDigits: StaticString = "0123456789abcdef"

    /// RFC 8259 §7: quotation mark, reverse solidus and control characters escaped; everything
    /// else, "/" and non-ASCII included, written as is.
    static func appendString(_ string: String, to out: JSONOutput) {
        // Most strings need no escape: quotes and one bulk copy instead of a byte-by-byte append.
        let copied = string.utf8.withContiguousStorageIfAvailable { text in
            let raw = UnsafeRawBufferPointer(text)
            guard JSONStringScan.firstSpecial(in: raw, from: 0, stopAtNonASCII: false) == raw.count else { return false }
            let target = out.reserve(raw.count + 2)
            target.pointee = UInt8(ascii: "\"")
            if let source = raw.baseAddress { memcpy(target + 1, source, raw.count) }
            target[raw.count + 1] = UInt8(ascii: "\"")
            out.count += raw.count + 2
            return true
        }
        if copied == true { return }
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                out.append(byte)
                continue
            }
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigits.utf8Start[Int(byte >> 4)])
                out.append(hexDigits.utf8Start[Int(byte & 0xF)])
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// An object member's name and its colon.
    @usableFromInline static func appendKey(_ key: String, to out: JSONOutput) {
        appendString(key, to: out)
        out.append(UInt8(ascii: ":"))
    }

    /// A finite floating-point value's shortest text, without the ".0" of integral values
    /// (what Foundation's encoder writes).
    static func appendNumber(_ description: String, to out: JSONOutput) {
        var text = Substring(description)
        if text.hasSuffix(".0") { text.removeLast(2) }
        for byte in text.utf8 { out.append(byte) }
    }

    static func appendStrings(_ strings: [String], to out: JSONOutput) {
        out.append(UInt8(ascii: "["))
        for index in strings.indices {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(strings[index], to: out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `ATBytes`' own encoding, `{"$bytes":"<base64, no padding>"}`, its base64 written in place.
    static func appendBytes(_ bytes: ATBytes, to out: JSONOutput) {
        let prefix: StaticString = #"{"$bytes":""#
        out.append(prefix)
        let length = Base64.encodedLength(of: bytes.bytes.count, padding: false)
        if length > 0 {
            let target = out.reserve(length)
            bytes.bytes.withUnsafeBufferPointer { Base64.write($0, padding: false, into: target) }
            out.count += length
        }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: "}"))
    }

    static func appendBool(_ value: Bool, to out: JSONOutput) {
        out.append(value ? "true" : "false")
    }

    static func appendNull(to out: JSONOutput) {
        out.append("null")
    }

    static func appendInteger<T: FixedWidthInteger>(_ value: T, to out: JSONOutput) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        // A sign and at most 39 digits (a 128-bit magnitude), least significant first, then
        // reversed in place.
        let target = out.reserve(40)
        var length = 0
        if value < 0 {
            target.pointee = UInt8(ascii: "-")
            length = 1
        }
        let start = length
        var magnitude = value.magnitude
        while magnitude > 0 {
            let (quotient, digit) = magnitude.quotientAndRemainder(dividingBy: 10)
            target[length] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit)
            length += 1
            magnitude = quotient
        }
        var digits = UnsafeMutableBufferPointer(start: target + start, count: length - start)
        digits.reverse()
        out.count += length
    }
}
