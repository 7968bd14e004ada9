extension DAGCBOR {
    /// The canonical encoding of `value`: shortest argument forms, definite lengths, map keys in
    /// `keyPrecedes` order. Encoding the same value always gives the same bytes.
    public static func encode(_ value: DAGCBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    public static func append(_ value: DAGCBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let number):
            appendHead(.unsigned, number, to: &out)
        case .bytes(let bytes):
            appendHead(.bytes, UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        case .text(let text):
            appendText(text, to: &out)
        case .bool(let flag):
            out.append(flag ? 0xF5 : 0xF4)
        case .array(let items):
            appendHead(.array, UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let entries):
            appendHead(.map, UInt64(entries.count), to: &out)
            for key in entries.keys.sorted(by: keyPrecedes) {
                appendText(key, to: &out)
                append(entries[key]!, to: &out)
            }
        }
    }

    static func appendText(_ text: String, to out: inout [UInt8]) {
        let utf8 = text.utf8
        appendHead(.text, UInt64(utf8.count), to: &out)
        out.append(contentsOf: utf8)
    }

    /// RFC 8949 §4.2.1: the argument in the shortest form that holds it.
    static func appendHead(_ major: Major, _ argument: UInt64, to out: inout [UInt8]) {
        let type = major.rawValue << 5
        switch argument {
        case ..<24:
            out.append(type | UInt8(argument))
        case ..<0x100:
            out.append(type | 24); out.append(UInt8(argument))
        case ..<0x1_0000:
            out.append(type | 25)
            out.append(UInt8(argument >> 8)); out.append(UInt8(truncatingIfNeeded: argument))
        case ..<0x1_0000_0000:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        }
    }
}
