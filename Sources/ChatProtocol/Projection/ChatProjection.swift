import JSON

/// Reads a value of the chat contract against its schema, field by field, the way the contract's
/// own server does (CHAT.md §1.3, "How a body becomes transcript bytes"): a field the schema does
/// not declare, a missing required field, null, a float, a negative integer, a `$type` anywhere
/// but on a body or union member, an unknown union member, an identifier in another spelling, a
/// length or bound outside the schema's, and an array out of the contract's order are all refused,
/// never dropped or repaired. The result is a `ChatValue`.
public struct ChatProjection: Sendable {
    public static let maxSafeInteger: UInt64 = (1 << 53) - 1

    public let schema: ChatSchema

    public init(schema: ChatSchema = .contract) { self.schema = schema }

    /// A JSON document as `type`.
    public func project(json bytes: [UInt8], as type: ChatSchema.FieldType) throws(ChatInputError) -> ChatValue {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: bytes) } catch { throw ChatInputError("", "not strict JSON: \(error)") }
        var walk = Walk(schema: schema, source: JSONSource(document: document))
        return try walk.value(document.root, type, path: "", def: nil, tagged: false)
    }

    /// A parsed JSON node as `type`.
    public func project(_ document: JSONDocument, _ node: JSONDocument.Node, as type: ChatSchema.FieldType,
                        path: String = "") throws(ChatInputError) -> ChatValue {
        var walk = Walk(schema: schema, source: JSONSource(document: document))
        return try walk.value(node, type, path: path, def: nil, tagged: false)
    }

    /// A DAG-CBOR value as `type`, UUIDs spelled as `form` says.
    public func project(cbor value: DAGCBORValue, as type: ChatSchema.FieldType, form: ChatValue.CBORForm) throws(ChatInputError) -> ChatValue {
        var walk = Walk(schema: schema, source: CBORSource(form: form))
        return try walk.value(value, type, path: "", def: nil, tagged: false)
    }

    /// A body or union member as the def it names by `$type` (`tagged`).
    public func project(cbor value: DAGCBORValue, taggedDef def: String, form: ChatValue.CBORForm) throws(ChatInputError) -> ChatValue {
        guard let type = schema.defs[def] else { throw ChatInputError("", "unknown def \(def)") }
        var walk = Walk(schema: schema, source: CBORSource(form: form))
        return try walk.value(value, type, path: "", def: def, tagged: true)
    }

    struct Walk<Source: ProjectionSource> {
        let schema: ChatSchema
        let source: Source

        mutating func value(_ node: Source.Node, _ type: ChatSchema.FieldType, path: String, def: String?,
                            tagged: Bool) throws(ChatInputError) -> ChatValue {
            switch type {
            case .ref(let name):
                return try ref(node, name, path: path, tagged: tagged)
            case .union(let names):
                guard let members = source.members(node) else { throw ChatInputError(path, "must be an object with $type") }
                guard let typeNode = members.first(where: { $0.key == "$type" })?.value, let typeID = source.text(typeNode) else {
                    throw ChatInputError(path, "a union member needs its $type")
                }
                guard typeID.hasPrefix(ChatSchema.typePrefix) else { throw ChatInputError(path, "unknown $type \(typeID)") }
                let name = String(typeID.dropFirst(ChatSchema.typePrefix.count))
                guard names.contains(name) else { throw ChatInputError(path, "$type \(typeID) is not a member of this union") }
                return try ref(node, name, path: path, tagged: true)
            case .object(let object):
                return try self.object(node, object, path: path, def: def, tagged: tagged)
            case .string(let rule):
                guard let text = source.text(node) else { throw mismatch(node, "a string", path) }
                try check(text, rule, path: path)
                return .text(text)
            case .bytes(let minLength, let maxLength):
                guard let result = source.bytes(node) else { throw mismatch(node, "bytes", path) }
                let bytes = try unwrap(result, path)
                if let minLength, bytes.count < minLength { throw ChatInputError(path, "shorter than \(minLength) bytes") }
                if let maxLength, bytes.count > maxLength { throw ChatInputError(path, "longer than \(maxLength) bytes") }
                return .bytes(bytes)
            case .integer(let minimum, let maximum, let constant):
                guard let result = source.integer(node) else { throw mismatch(node, "an integer", path) }
                let number = try unwrap(result, path)
                if let minimum, number < minimum { throw ChatInputError(path, "below \(minimum)") }
                if let maximum, number > maximum { throw ChatInputError(path, "above \(maximum)") }
                if let constant, number != constant { throw ChatInputError(path, "must be \(constant)") }
                return .integer(number)
            case .boolean(let constant):
                guard let flag = source.bool(node) else { throw mismatch(node, "a boolean", path) }
                if let constant, flag != constant { throw ChatInputError(path, "must be \(constant)") }
                return .bool(flag)
            case .array(let items, let minLength, let maxLength):
                guard let elements = source.elements(node) else { throw mismatch(node, "an array", path) }
                if let minLength, elements.count < minLength { throw ChatInputError(path, "fewer than \(minLength) items") }
                if let maxLength, elements.count > maxLength { throw ChatInputError(path, "more than \(maxLength) items") }
                var out: [ChatValue] = []
                out.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    out.append(try value(element, items, path: "\(path)[\(index)]", def: nil, tagged: false))
                }
                return .array(out)
            }
        }

        /// The contract's own string types are checked by their grammar; every other ref by its def.
        mutating func ref(_ node: Source.Node, _ name: String, path: String, tagged: Bool) throws(ChatInputError) -> ChatValue {
            switch name {
            case "operationId", "deviceId":
                guard let result = source.uuid(node) else { throw mismatch(node, "a UUID", path) }
                return .uuid(try unwrap(result, path))
            case "bareDid":
                guard let text = source.text(node) else { throw mismatch(node, "a DID", path) }
                guard BareDIDGrammar.accepts(text) else { throw ChatInputError(path, "not a bare did:plc or hostname did:web") }
                return .text(text)
            case "keyId":
                guard let text = source.text(node) else { throw mismatch(node, "a key id", path) }
                guard ChatKeyID.isWellFormed(text) else { throw ChatInputError(path, "not an unpadded base64url SHA-256") }
                return .text(text)
            case "canonicalDatetime":
                guard let text = source.text(node) else { throw mismatch(node, "a timestamp", path) }
                guard CanonicalTimestamp(text) != nil else { throw ChatInputError(path, "not YYYY-MM-DDTHH:MM:SS.sssZ") }
                return .text(text)
            default:
                guard let def = schema.defs[name] else { throw ChatInputError(path, "unknown def \(name)") }
                return try value(node, def, path: path, def: name, tagged: tagged)
            }
        }

        mutating func object(_ node: Source.Node, _ object: ChatSchema.ObjectType, path: String, def: String?,
                             tagged: Bool) throws(ChatInputError) -> ChatValue {
            guard let members = source.members(node) else { throw mismatch(node, "an object", path) }
            var out: [String: ChatValue] = [:]
            out.reserveCapacity(members.count)
            for (key, valueNode) in members {
                let fieldPath = path.isEmpty ? key : "\(path).\(key)"
                if key == "$type" {
                    guard tagged, let def else { throw ChatInputError(fieldPath, "$type is only allowed on a body or union member") }
                    guard source.text(valueNode) == ChatSchema.typePrefix + def else {
                        throw ChatInputError(fieldPath, "must be \(ChatSchema.typePrefix + def)")
                    }
                    out[key] = .text(ChatSchema.typePrefix + def)
                    continue
                }
                guard let field = object.properties[key] else { throw ChatInputError(fieldPath, "unknown field") }
                out[key] = try value(valueNode, field, path: fieldPath, def: nil, tagged: false)
            }
            if tagged, out["$type"] == nil { throw ChatInputError(path, "missing $type") }
            for name in object.order where object.required.contains(name) && out[name] == nil {
                throw ChatInputError(path.isEmpty ? name : "\(path).\(name)", "missing required field")
            }
            if let def { try ContractOrder.check(def, out, path: path) }
            return .object(out)
        }

        func check(_ text: String, _ rule: ChatSchema.StringRule, path: String) throws(ChatInputError) {
            if let constant = rule.constant, text != constant { throw ChatInputError(path, "must be \(constant.debugDescription)") }
            if let allowed = rule.allowed, !allowed.contains(text) { throw ChatInputError(path, "\(text.debugDescription) is not one of the contract's values") }
            let length = text.utf8.count
            if let minLength = rule.minLength, length < minLength { throw ChatInputError(path, "shorter than \(minLength) bytes") }
            if let maxLength = rule.maxLength, length > maxLength { throw ChatInputError(path, "longer than \(maxLength) bytes") }
            if rule.minGraphemes != nil || rule.maxGraphemes != nil {
                let graphemes = text.count
                if let minimum = rule.minGraphemes, graphemes < minimum { throw ChatInputError(path, "fewer than \(minimum) graphemes") }
                if let maximum = rule.maxGraphemes, graphemes > maximum { throw ChatInputError(path, "more than \(maximum) graphemes") }
            }
            switch rule.format {
            case "did": guard BareDIDGrammar.accepts(text) else { throw ChatInputError(path, "not a bare DID") }
            case "datetime": guard CanonicalTimestamp(text) != nil else { throw ChatInputError(path, "not YYYY-MM-DDTHH:MM:SS.sssZ") }
            default: break
            }
        }

        func mismatch(_ node: Source.Node, _ expected: String, _ path: String) -> ChatInputError {
            ChatInputError(path, "must be \(expected), not \(source.kindName(node))")
        }

        func unwrap<T>(_ result: Result<T, ChatInputError>, _ path: String) throws(ChatInputError) -> T {
            switch result {
            case .success(let value): return value
            case .failure(let error): throw ChatInputError(path, error.reason)
            }
        }
    }
}
