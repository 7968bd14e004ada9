import Basics

/// The JSON shape of a field, as a lexicon describes it and as a Swift type decodes it.
indirect enum FieldShape: Equatable, CustomStringConvertible {
    case string
    case integer
    case boolean
    case bytes
    /// A lexicon `unknown` (here: a flat object of strings).
    case unknown
    case array(FieldShape)
    case object([String: Field])

    struct Field: Equatable, CustomStringConvertible {
        var shape: FieldShape
        var required: Bool

        var description: String { (required ? "" : "optional ") + shape.description }
    }

    var description: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .boolean: "boolean"
        case .bytes: "bytes"
        case .unknown: "unknown"
        case .array(let element): "array of \(element)"
        case .object(let fields): "object {\(fields.keys.sorted().joined(separator: ", "))}"
        }
    }

    /// Every difference between `self` (the lexicon) and `other` (the Swift type), each naming its
    /// path.
    func differences(from other: FieldShape, at path: String) -> [String] {
        switch (self, other) {
        case (.object(let lexicon), .object(let swift)):
            var out: [String] = []
            for name in Set(lexicon.keys).union(swift.keys).sorted() {
                let field = path.isEmpty ? name : path + "." + name
                switch (lexicon[name], swift[name]) {
                case (let expected?, let actual?):
                    if expected.required != actual.required {
                        out.append("\(field): the lexicon has it \(expected.required ? "required" : "optional"), "
                                   + "the type \(actual.required ? "required" : "optional")")
                    }
                    out += expected.shape.differences(from: actual.shape, at: field)
                case (_?, nil): out.append("\(field): in the lexicon, not in the type")
                case (nil, _?): out.append("\(field): in the type, not in the lexicon")
                case (nil, nil): break
                }
            }
            return out
        case (.array(let lexicon), .array(let swift)):
            return lexicon.differences(from: swift, at: path + "[]")
        default:
            return self == other ? [] : ["\(path.isEmpty ? "(body)" : path): the lexicon says \(self), the type \(other)"]
        }
    }
}
