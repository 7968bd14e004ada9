import JSON

/// The chat contract's lexicons (lexicon/chat/*.json, embedded as `ChatLexiconText`), read once
/// into a form the projection walks: every def of `blue.catbird.chat.defs` and every method's
/// parameters, input, output and subscription message. The contract is closed: unions name their
/// members, objects their fields, and nothing outside them is accepted (ChatProjection).
public struct ChatSchema: Sendable {
    public indirect enum FieldType: Sendable {
        /// A def of `blue.catbird.chat.defs`, by its bare name.
        case ref(String)
        case union([String])
        case object(ObjectType)
        case string(StringRule)
        case bytes(minLength: Int?, maxLength: Int?)
        case integer(minimum: UInt64?, maximum: UInt64?, constant: UInt64?)
        case boolean(constant: Bool?)
        case array(items: FieldType, minLength: Int?, maxLength: Int?)
    }

    public struct ObjectType: Sendable {
        /// Properties in the lexicon's order.
        public let order: [String]
        public let properties: [String: FieldType]
        public let required: Set<String>
    }

    public struct StringRule: Sendable {
        public var constant: String?
        /// `enum` and, as the contract treats them, `knownValues`: closed sets.
        public var allowed: [String]?
        public var minLength: Int?
        public var maxLength: Int?
        public var minGraphemes: Int?
        public var maxGraphemes: Int?
        public var format: String?
    }

    /// A method's lexicon: what its query parameters, JSON input and output, and stream messages are.
    public struct Method: Sendable {
        public let nsid: String
        public let type: String
        public let parameters: ObjectType?
        public let input: FieldType?
        public let output: FieldType?
        public let message: FieldType?
        public let errors: Set<String>
    }

    public static let defsID = "blue.catbird.chat.defs"
    public static let typePrefix = "blue.catbird.chat.defs#"

    public let defs: [String: FieldType]
    public let methods: [String: Method]

    /// The embedded contract; a defect in it is a build defect, caught by ChatSchemaTests.
    public static let contract: ChatSchema = {
        do { return try ChatSchema(documents: ChatLexiconText.documents) } catch { fatalError("embedded chat lexicon: \(error)") }
    }()

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(documents: [String]) throws(LoadError) {
        var defs: [String: FieldType] = [:]
        var methods: [String: Method] = [:]
        for text in documents {
            let document: JSONDocument
            do { document = try JSONDocument(parsing: Array(text.utf8)) } catch { throw LoadError(description: "\(error)") }
            let reader = Reader(document: document)
            guard let id = reader.string("id", of: document.root),
                  let defsNode = document.member("defs", of: document.root) else { throw LoadError(description: "a document without id or defs") }
            if id == Self.defsID {
                for (name, node) in document.members(defsNode) { defs[name] = try reader.field(node) }
            } else if let main = document.member("main", of: defsNode) {
                methods[id] = try reader.method(id, main)
            }
        }
        self.defs = defs
        self.methods = methods
        for (name, def) in defs { try Self.checkRefs(def, in: defs, at: name) }
    }

    private static func checkRefs(_ type: FieldType, in defs: [String: FieldType], at path: String) throws(LoadError) {
        switch type {
        case .ref(let name): guard defs[name] != nil else { throw LoadError(description: "\(path): unknown ref \(name)") }
        case .union(let names): for name in names where defs[name] == nil { throw LoadError(description: "\(path): unknown ref \(name)") }
        case .object(let object): for (key, field) in object.properties { try checkRefs(field, in: defs, at: "\(path).\(key)") }
        case .array(let items, _, _): try checkRefs(items, in: defs, at: path)
        default: break
        }
    }

    public func method(_ nsid: String) -> Method? { methods[nsid] }

    /// The def a ref names.
    public func def(_ name: String) -> FieldType? { defs[name] }

    private struct Reader {
        let document: JSONDocument

        func string(_ key: String, of node: JSONDocument.Node) -> String? {
            document.member(key, of: node).flatMap { document.string($0) }
        }

        func int(_ key: String, of node: JSONDocument.Node) -> Int? {
            document.member(key, of: node).flatMap { document.numberText($0) }.flatMap { Int($0.text) }
        }

        func strings(_ key: String, of node: JSONDocument.Node) -> [String]? {
            document.member(key, of: node).map { document.elements($0).compactMap { document.string($0) } }
        }

        /// `#name` and `blue.catbird.chat.defs#name` both name a def of the defs document.
        func refName(_ ref: String) throws(LoadError) -> String {
            if ref.hasPrefix("#") { return String(ref.dropFirst()) }
            if ref.hasPrefix(ChatSchema.typePrefix) { return String(ref.dropFirst(ChatSchema.typePrefix.count)) }
            throw LoadError(description: "ref outside the chat contract: \(ref)")
        }

        func field(_ node: JSONDocument.Node) throws(LoadError) -> FieldType {
            guard let type = string("type", of: node) else { throw LoadError(description: "a schema without type") }
            switch type {
            case "ref":
                guard let ref = string("ref", of: node) else { throw LoadError(description: "ref without target") }
                return .ref(try refName(ref))
            case "union":
                var names: [String] = []
                for ref in strings("refs", of: node) ?? [] { names.append(try refName(ref)) }
                return .union(names)
            case "object", "params":
                return .object(try object(node))
            case "string":
                var rule = StringRule()
                rule.constant = string("const", of: node)
                rule.allowed = strings("enum", of: node) ?? strings("knownValues", of: node)
                rule.minLength = int("minLength", of: node)
                rule.maxLength = int("maxLength", of: node)
                rule.minGraphemes = int("minGraphemes", of: node)
                rule.maxGraphemes = int("maxGraphemes", of: node)
                rule.format = string("format", of: node)
                return .string(rule)
            case "bytes":
                return .bytes(minLength: int("minLength", of: node), maxLength: int("maxLength", of: node))
            case "integer":
                return .integer(minimum: int("minimum", of: node).map(UInt64.init), maximum: int("maximum", of: node).map(UInt64.init),
                                constant: int("const", of: node).map(UInt64.init))
            case "boolean":
                return .boolean(constant: document.member("const", of: node).flatMap { document.bool($0) })
            case "array":
                guard let items = document.member("items", of: node) else { throw LoadError(description: "array without items") }
                return .array(items: try field(items), minLength: int("minLength", of: node), maxLength: int("maxLength", of: node))
            default:
                throw LoadError(description: "unsupported schema type \(type)")
            }
        }

        func object(_ node: JSONDocument.Node) throws(LoadError) -> ObjectType {
            var order: [String] = []
            var properties: [String: FieldType] = [:]
            if let props = document.member("properties", of: node) {
                for (name, value) in document.members(props) {
                    order.append(name)
                    properties[name] = try field(value)
                }
            }
            return ObjectType(order: order, properties: properties, required: Set(strings("required", of: node) ?? []))
        }

        func method(_ nsid: String, _ main: JSONDocument.Node) throws(LoadError) -> Method {
            func body(_ key: String) throws(LoadError) -> FieldType? {
                guard let part = document.member(key, of: main), let schema = document.member("schema", of: part) else { return nil }
                return try field(schema)
            }
            let parameters = try document.member("parameters", of: main).map { (node) throws(LoadError) in try object(node) }
            var errors: Set<String> = []
            if let list = document.member("errors", of: main) {
                for item in document.elements(list) { if let name = string("name", of: item) { errors.insert(name) } }
            }
            return Method(nsid: nsid, type: string("type", of: main) ?? "", parameters: parameters, input: try body("input"),
                          output: try body("output"), message: try body("message"), errors: errors)
        }
    }
}
