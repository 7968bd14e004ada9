import Basics
import JSON

/// A `ChatValue` as the JSON of the wire: UUIDs as text, bytes as `{"$bytes": padded standard
/// base64}` (the only form Petrel decodes, CHAT.md §6 item 4), members in a fixed order (`$type`
/// first, then by name), so that the same value is always the same bytes.
public enum ChatJSON {
    public static func render(_ value: ChatValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    public static func append(_ value: ChatValue, to out: inout [UInt8]) {
        switch value {
        case .text(let text):
            JSONString.append(text, to: &out)
        case .uuid(let uuid):
            JSONString.append(uuid.description, to: &out)
        case .bytes(let bytes):
            out.append(contentsOf: Array("{\"$bytes\":\"".utf8))
            Base64.append(bytes, to: &out)
            out.append(contentsOf: Array("\"}".utf8))
        case .integer(let number):
            out.append(contentsOf: Array(String(number).utf8))
        case .bool(let flag):
            out.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(members[key]!, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension ChatJSON {
    /// A member of an object written by `object(_:)`: a value, or JSON rendered before (a stored
    /// signed request, an entry) spliced in as it is.
    public enum Member: Sendable {
        case value(ChatValue)
        case raw([UInt8])
    }

    /// An object of `members`, written in the same order as `render` writes one.
    public static func object(_ members: [String: Member]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, key) in members.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch members[key]! {
            case .value(let value): append(value, to: &out)
            case .raw(let bytes): out.append(contentsOf: bytes)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// An array of JSON rendered before.
    public static func array(_ items: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: item)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
