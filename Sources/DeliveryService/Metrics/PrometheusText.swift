/// Writes the Prometheus text exposition format, version 0.0.4.
struct PrometheusText {
    private(set) var text = ""

    mutating func header(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + value + "\n"
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: UInt64) {
        sample(name, labels, String(value))
    }

    /// Label values escape backslash, double quote and line feed.
    static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func number(_ value: Double) -> String {
        if value == .infinity { return "+Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
