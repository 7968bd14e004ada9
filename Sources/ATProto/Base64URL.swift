/// base64url without padding (RFC 4648 §5, RFC 7515 §2). Decoding tolerates correct `=` padding
/// and rejects everything else: other alphabets, whitespace, impossible lengths and non-zero
/// trailing bits, so every byte string has exactly one accepted encoding (plus its padded form).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [18, 12, 6, 0].map { alphabet[Int((value >> UInt32($0)) & 63)] }
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let value = UInt32(bytes[index]) << 16
            out += [18, 12].map { alphabet[Int((value >> UInt32($0)) & 63)] }
        case 2:
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [18, 12, 6].map { alphabet[Int((value >> UInt32($0)) & 63)] }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var input = Array(text.utf8)
        if input.count % 4 == 0, let firstPad = input.firstIndex(of: UInt8(ascii: "=")) {
            let padding = input.count - firstPad
            guard padding <= 2, input[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return nil }
            input.removeLast(padding)
        }
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = reverse[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // RFC 4648 §3.5: the leftover bits of the last character must be zero.
        guard accumulator == 0 else { return nil }
        return out
    }
}
