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
}
