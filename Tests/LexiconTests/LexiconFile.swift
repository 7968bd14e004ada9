import Foundation

/// One lexicon/*.json document (AT Protocol Lexicon v1), read with JSONSerialization.
struct LexiconFile {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The file name without `.json` (e.g. `sendMessage`, `defs`).
    let name: String
    /// `defs` of the document; `main` is the method.
    let definitions: [String: Schema]

    /// Every `*.json` of `directory`, by name.
    static func all(in directory: URL) throws -> [String: LexiconFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        var files: [String: LexiconFile] = [:]
        for file in names {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let defs = object["defs"] as? [String: Any] else { throw Malformed(description: "\(file): no defs") }
            let name = String(file.dropLast(5))
            var definitions: [String: Schema] = [:]
            for (key, value) in defs {
                guard let schema = value as? [String: Any] else { throw Malformed(description: "\(file)#\(key)") }
                definitions[key] = Schema(schema)
            }
            files[name] = LexiconFile(name: name, definitions: definitions)
        }
        return files
    }

    /// The schema of the method's `input` or `output` when it is a JSON body.
    func jsonSchema(_ part: String) -> Schema? {
        guard let body = definitions["main"]?.object[part] as? [String: Any],
              body["encoding"] as? String == "application/json",
              let schema = body["schema"] as? [String: Any] else { return nil }
        return Schema(schema)
    }

    /// One schema node: `type` and what goes with it.
    struct Schema {
        let object: [String: Any]

        init(_ object: [String: Any]) { self.object = object }

        /// The node as a FieldShape, refs resolved (`#name` in `file`, `nsid#name` in that file).
        func shape(in file: LexiconFile, lexicons: [String: LexiconFile]) throws -> FieldShape {
            let type = object["type"] as? String ?? ""
            switch type {
            case "string": return .string
            case "integer": return .integer
            case "boolean": return .boolean
            case "bytes": return .bytes
            case "unknown": return .unknown
            case "array":
                guard let items = object["items"] as? [String: Any] else { throw Malformed(description: "\(file.name): array without items") }
                return .array(try Schema(items).shape(in: file, lexicons: lexicons))
            case "object":
                let properties = object["properties"] as? [String: Any] ?? [:]
                let required = Set(object["required"] as? [String] ?? [])
                var fields: [String: FieldShape.Field] = [:]
                for (name, value) in properties {
                    guard let property = value as? [String: Any] else { throw Malformed(description: "\(file.name).\(name)") }
                    fields[name] = FieldShape.Field(shape: try Schema(property).shape(in: file, lexicons: lexicons),
                                                    required: required.contains(name))
                }
                for name in required where properties[name] == nil {
                    throw Malformed(description: "\(file.name): \(name) is required but not a property")
                }
                return .object(fields)
            case "ref":
                guard let ref = object["ref"] as? String, let hash = ref.firstIndex(of: "#") else {
                    throw Malformed(description: "\(file.name): bad ref")
                }
                let nsid = ref[..<hash]
                let target = nsid.isEmpty ? file : lexicons[String(nsid.split(separator: ".").last ?? "")]
                guard let target, let definition = target.definitions[String(ref[ref.index(after: hash)...])] else {
                    throw Malformed(description: "\(file.name): unresolved ref \(ref)")
                }
                return try definition.shape(in: target, lexicons: lexicons)
            default:
                throw Malformed(description: "\(file.name): type \(type) has no Swift counterpart")
            }
        }
    }
}
