import Foundation

/// ULID-shaped message ids (26 Crockford base32 characters): the run's millisecond time, then a
/// counter, so every id of a run differs.
struct MessageIDs {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    private let prefix = UInt64(Date().timeIntervalSince1970 * 1000)

    func id(_ index: Int) -> String {
        var out = [Character](repeating: "0", count: 26)
        var time = prefix
        for position in stride(from: 9, through: 0, by: -1) {
            out[position] = Self.alphabet[Int(time & 31)]
            time >>= 5
        }
        var counter = UInt64(index)
        for position in stride(from: 25, through: 10, by: -1) {
            out[position] = Self.alphabet[Int(counter & 31)]
            counter >>= 5
        }
        return String(out)
    }

    /// The counter of an id this value made, from its 26 ASCII bytes; nil for anyone else's id.
    func index(ofID bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 26 else { return nil }
        var time = prefix
        var position = bytes.startIndex + 9
        while position >= bytes.startIndex {
            guard bytes[position] == Self.alphabetBytes[Int(time & 31)] else { return nil }
            time >>= 5
            position -= 1
        }
        var counter = 0
        for byte in bytes[(bytes.startIndex + 10)...] {
            guard let digit = Self.digitValues[Int(byte)] else { return nil }
            counter = counter << 5 | digit
        }
        return counter
    }

    private static let alphabetBytes = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let digitValues: [Int?] = (0..<256).map { byte in alphabetBytes.firstIndex(of: UInt8(byte)) }
}
