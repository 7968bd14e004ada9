/// `command --name value…` as main.swift documents it.
struct Options {
    let command: String
    private let values: [String: String]

    init(_ arguments: [String]) throws {
        guard let command = arguments.first else { throw BenchError.usage("ds-bench plc|prepare|add-members|events --name value…") }
        self.command = command
        var values: [String: String] = [:]
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), let value = rest.popFirst() else { throw BenchError.usage("expected --name value at \(name)") }
            values[String(name.dropFirst(2))] = value
        }
        self.values = values
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError.usage("--\(name) is required for \(command)") }
        return value
    }

    func int(_ name: String, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value > 0 else { throw BenchError.usage("--\(name) must be a positive integer") }
        return value
    }

    func optionalString(_ name: String) -> String? {
        values[name]
    }

    func optionalInt(_ name: String) throws -> Int? {
        guard values[name] != nil else { return nil }
        return try int(name, default: 0)
    }

    func client() throws -> XRPCClient {
        XRPCClient(baseURL: try string("server"), audience: try string("audience"))
    }
}
