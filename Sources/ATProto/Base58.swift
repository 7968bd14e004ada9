/// base58btc, the Bitcoin alphabet (draft-msporny-base58 §2), used by multibase `z` strings.
public enum Base58 {
    private static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        // Base-58 digits, least significant first.
        var digits: [UInt8] = []
        for byte in bytes[zeros...] {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = [UInt8](repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// Nil for characters outside the alphabet or input longer than `maxLength` (the conversion
    /// is quadratic, so untrusted input is bounded first).
    public static func decode<S: StringProtocol>(_ text: S, maxLength: Int = 512) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count <= maxLength else { return nil }
        let zeros = input.prefix { $0 == alphabet[0] }.count
        // Base-256 bytes, least significant first.
        var bytes: [UInt8] = []
        for character in input[zeros...] {
            let value = reverse[Int(character)]
            guard value != 0xFF else { return nil }
            var carry = Int(value)
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }
}
