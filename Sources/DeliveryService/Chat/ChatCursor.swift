import Basics

/// An event cursor of the chat stream (`snapshotEventCursor`, `eventEnvelope.cursor`): opaque to
/// clients, here the global event position it stands after, `c1.` and its 8 bytes in unpadded
/// base64url. One spelling per position, so cursors compare as text.
enum ChatCursor {
    static func text(_ position: Int64) -> String {
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: position >> Int64(shift))) }
        return "c1." + Base64.encode(bytes, padding: false, alphabet: .url)
    }

    static func position(_ text: String) -> Int64? {
        guard text.hasPrefix("c1."), let bytes = Base64.decode(String(text.dropFirst(3)), alphabet: .url), bytes.count == 8 else {
            return nil
        }
        let position = bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard position >= 0, Self.text(position) == text else { return nil }
        return position
    }
}
