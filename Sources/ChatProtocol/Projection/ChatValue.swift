/// A value of the chat contract after projection against its schema (ChatProjection): what a
/// request or response means, independent of its JSON or DAG-CBOR spelling. UUIDs are kept apart
/// from other text because the two encodings spell them differently (text in JSON and in event
/// frames, 16 raw bytes in a signing transcript).
public indirect enum ChatValue: Sendable, Equatable {
    case text(String)
    case uuid(ChatUUID)
    case bytes([UInt8])
    case integer(UInt64)
    case bool(Bool)
    case array([ChatValue])
    /// Members by name, `$type` among them on the body and on union members.
    case object([String: ChatValue])

    public subscript(key: String) -> ChatValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var uuid: ChatUUID? { if case .uuid(let value) = self { value } else { nil } }
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var integer: UInt64? { if case .integer(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var array: [ChatValue]? { if case .array(let value) = self { value } else { nil } }
    public var members: [String: ChatValue]? { if case .object(let value) = self { value } else { nil } }

    /// The full `$type` of a body or union member.
    public var type: String? { self["$type"]?.text }

    /// A union member: the object with its full `$type` set.
    public static func tagged(_ def: String, _ members: [String: ChatValue]) -> ChatValue {
        var members = members
        members["$type"] = .text(ChatSchema.typePrefix + def)
        return .object(members)
    }

    /// How UUIDs are spelled in DAG-CBOR: raw bytes in signing transcripts, text in data (event
    /// frames carry lexicon data as it is, where a UUID is a string).
    public enum CBORForm: Sendable { case signing, data }

    public func dagCBOR(_ form: CBORForm) -> DAGCBORValue {
        switch self {
        case .text(let text): .text(text)
        case .uuid(let uuid): form == .signing ? .bytes(uuid.bytes) : .text(uuid.description)
        case .bytes(let bytes): .bytes(bytes)
        case .integer(let number): .unsigned(number)
        case .bool(let flag): .bool(flag)
        case .array(let items): .array(items.map { $0.dagCBOR(form) })
        case .object(let members): .map(members.mapValues { $0.dagCBOR(form) })
        }
    }
}
