/// The binary form of `numeric` (`numeric_send`): int16 ndigits, int16 weight, uint16 sign,
/// uint16 dscale, then `ndigits` base-10000 digits, the first of weight `weight`.
enum PGNumeric {
    static let positive: UInt16 = 0x0000
    static let negative: UInt16 = 0x4000
    static let nan: UInt16 = 0xC000
    static let positiveInfinity: UInt16 = 0xD000
    static let negativeInfinity: UInt16 = 0xF000

    /// The value's decimal text, as `numeric_out` prints it (`dscale` fraction digits).
    static func string(from bytes: [UInt8]) throws(StoreError) -> String {
        var reader = PGBinaryReader(bytes)
        let count = Int(try reader.read(Int16.self))
        let weight = Int(try reader.read(Int16.self))
        let sign = try reader.read(UInt16.self)
        let scale = Int(try reader.read(UInt16.self))
        guard count >= 0, reader.remaining == count * 2 else {
            throw .decoding("numeric: \(count) digits declared, \(reader.remaining) bytes follow")
        }
        var digits: [Int] = []
        for _ in 0..<count {
            let digit = Int(try reader.read(Int16.self))
            guard (0..<10_000).contains(digit) else { throw .decoding("numeric: digit \(digit) out of range") }
            digits.append(digit)
        }
        switch sign {
        case nan: return "NaN"
        case positiveInfinity: return "Infinity"
        case negativeInfinity: return "-Infinity"
        case positive, negative: break
        default: throw .decoding("numeric: unknown sign 0x\(String(sign, radix: 16))")
        }
        guard scale <= 0x3FFF else { throw .decoding("numeric: scale \(scale) out of range") }

        func digit(_ index: Int) -> Int { index >= 0 && index < digits.count ? digits[index] : 0 }
        func padded(_ group: Int) -> String {
            let text = String(group)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        var text = ""
        if weight < 0 {
            text = "0"
        } else {
            // The digit at index k has weight `weight - k`.
            for index in 0...weight { text += index == 0 ? String(digit(0)) : padded(digit(index)) }
        }
        if scale > 0 {
            var fraction = ""
            var group = 1
            while fraction.count < scale {
                fraction += padded(digit(weight + group))
                group += 1
            }
            text += "." + fraction.prefix(scale)
        }
        let isZero = digits.allSatisfy { $0 == 0 }
        return sign == negative && !isZero ? "-" + text : text
    }
}
