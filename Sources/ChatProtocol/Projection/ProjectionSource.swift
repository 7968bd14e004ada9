import Basics
import JSON

/// What ChatProjection reads a value from: a JSON document (requests, the wire), or DAG-CBOR (a
/// stored signed body, an event frame). Each source says how it spells UUIDs and bytes.
protocol ProjectionSource {
    associatedtype Node
    func kindName(_ node: Node) -> String
    func members(_ node: Node) -> [(key: String, value: Node)]?
    func elements(_ node: Node) -> [Node]?
    func text(_ node: Node) -> String?
    /// Nil when the node is not a non-negative integer; a reason when it is a number outside the profile.
    func integer(_ node: Node) -> Result<UInt64, ChatInputError>?
    func bool(_ node: Node) -> Bool?
    func bytes(_ node: Node) -> Result<[UInt8], ChatInputError>?
    func uuid(_ node: Node) -> Result<ChatUUID, ChatInputError>?
}

/// JSON as clients send it: UUIDs as canonical text, bytes as `{"$bytes": base64}` or a bare
/// base64 string, both standard and padded, and canonical (re-encoding gives the same text).
struct JSONSource: ProjectionSource {
    let document: JSONDocument

    func kindName(_ node: JSONDocument.Node) -> String {
        switch document.kind(node) {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    func members(_ node: JSONDocument.Node) -> [(key: String, value: JSONDocument.Node)]? {
        document.kind(node) == .object ? document.members(node) : nil
    }

    func elements(_ node: JSONDocument.Node) -> [JSONDocument.Node]? {
        document.kind(node) == .array ? document.elements(node) : nil
    }

    func text(_ node: JSONDocument.Node) -> String? { document.string(node) }

    func integer(_ node: JSONDocument.Node) -> Result<UInt64, ChatInputError>? {
        guard let (text, isInteger) = document.numberText(node) else { return nil }
        guard isInteger else { return .failure(ChatInputError("", "floats are not part of the contract")) }
        guard !text.hasPrefix("-") else { return .failure(ChatInputError("", "negative integers are not part of the contract")) }
        guard let value = UInt64(text), value <= ChatProjection.maxSafeInteger else {
            return .failure(ChatInputError("", "integer above 2^53-1"))
        }
        return .success(value)
    }

    func bool(_ node: JSONDocument.Node) -> Bool? { document.bool(node) }

    func bytes(_ node: JSONDocument.Node) -> Result<[UInt8], ChatInputError>? {
        var encoded: String?
        if let text = document.string(node) {
            encoded = text
        } else if let members = members(node) {
            guard members.count == 1, members[0].key == "$bytes", let text = document.string(members[0].value) else {
                return .failure(ChatInputError("", "bytes must be {\"$bytes\": base64}"))
            }
            encoded = text
        }
        guard let encoded else { return nil }
        guard let bytes = Base64.decode(encoded), Base64.encode(bytes) == encoded else {
            return .failure(ChatInputError("", "bytes must be canonical padded standard base64"))
        }
        return .success(bytes)
    }

    func uuid(_ node: JSONDocument.Node) -> Result<ChatUUID, ChatInputError>? {
        guard let text = document.string(node) else { return nil }
        guard let uuid = ChatUUID(text) else { return .failure(ChatInputError("", "not a lowercase hyphenated UUIDv4")) }
        return .success(uuid)
    }
}

/// DAG-CBOR, with UUIDs as 16 raw bytes (a signing projection) or as text (event frames).
struct CBORSource: ProjectionSource {
    let form: ChatValue.CBORForm

    func kindName(_ node: DAGCBORValue) -> String {
        switch node {
        case .unsigned: "an integer"
        case .bytes: "bytes"
        case .text: "text"
        case .bool: "a boolean"
        case .array: "an array"
        case .map: "a map"
        }
    }

    func members(_ node: DAGCBORValue) -> [(key: String, value: DAGCBORValue)]? {
        guard case .map(let entries) = node else { return nil }
        return entries.map { ($0.key, $0.value) }
    }

    func elements(_ node: DAGCBORValue) -> [DAGCBORValue]? {
        if case .array(let items) = node { return items }
        return nil
    }

    func text(_ node: DAGCBORValue) -> String? {
        if case .text(let text) = node { return text }
        return nil
    }

    func integer(_ node: DAGCBORValue) -> Result<UInt64, ChatInputError>? {
        guard case .unsigned(let value) = node else { return nil }
        guard value <= ChatProjection.maxSafeInteger else { return .failure(ChatInputError("", "integer above 2^53-1")) }
        return .success(value)
    }

    func bool(_ node: DAGCBORValue) -> Bool? {
        if case .bool(let flag) = node { return flag }
        return nil
    }

    func bytes(_ node: DAGCBORValue) -> Result<[UInt8], ChatInputError>? {
        if case .bytes(let bytes) = node { return .success(bytes) }
        return nil
    }

    func uuid(_ node: DAGCBORValue) -> Result<ChatUUID, ChatInputError>? {
        switch (form, node) {
        case (.signing, .bytes(let bytes)):
            guard let uuid = ChatUUID(bytes: bytes) else { return .failure(ChatInputError("", "not the 16 bytes of a UUIDv4")) }
            return .success(uuid)
        case (.data, .text(let text)):
            guard let uuid = ChatUUID(text) else { return .failure(ChatInputError("", "not a lowercase hyphenated UUIDv4")) }
            return .success(uuid)
        default:
            return nil
        }
    }
}
