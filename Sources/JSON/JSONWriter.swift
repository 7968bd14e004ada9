import Basics

/// JSON text output shared by the stream encoder and the object writer: string escaping, number
/// text, `$bytes`.
enum JSONWriter {
    static let trueText: [UInt8] = Array("true".utf8)
    static let falseText: [UInt8] = Array("false".utf8)
    static let nullText: [UInt8] = Array("null".utf8)
    static let bytesPrefix: [UInt8] = Array(#"{"$bytes":""#.utf8)
    static let bytesSuffix: [UInt8] = Array(#""}"#.utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// RFC 8259 §7: quotation mark, reverse solidus and control characters escaped; everything
    /// else, "/" and non-ASCII included, written as is.
    static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        // Most strings need no escape: one bulk copy instead of a byte-by-byte append.
        let copied = utf8.withContiguousStorageIfAvailable { text in
            let raw = UnsafeRawBufferPointer(text)
            guard JSONStringScan.firstSpecial(in: raw, from: 0, stopAtNonASCII: false) == raw.count else { return false }
            out.append(contentsOf: text)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
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
                out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A finite floating-point value's shortest text, without the ".0" of integral values
    /// (what Foundation's encoder writes).
    static func appendNumber(_ description: String, to out: inout [UInt8]) {
        var text = Substring(description)
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }

    static func appendStrings(_ strings: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(string, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `ATBytes`' own encoding, `{"$bytes":"<base64, no padding>"}`.
    static func appendBytes(_ bytes: ATBytes, to out: inout [UInt8]) {
        out.append(contentsOf: bytesPrefix)
        Base64.append(bytes.bytes, padding: false, to: &out)
        out.append(contentsOf: bytesSuffix)
    }

    static func appendInteger<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        // Digits of the magnitude, least significant first, then reversed in place.
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = out.count
        while magnitude > 0 {
            let (quotient, digit) = magnitude.quotientAndRemainder(dividingBy: 10)
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit))
            magnitude = quotient
        }
        out[start...].reverse()
    }
}
