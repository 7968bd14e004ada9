/// The declared variables as `catbird-mls-server --help` prints them and as docs/configuration.md
/// holds them (between its generated-section markers; scripts/configuration-doc.sh writes them).
public enum ConfigurationDocument {
    /// The markers around the generated part of docs/configuration.md.
    public static let beginMarker = "<!-- BEGIN generated from the declarations (scripts/configuration-doc.sh); edit those, not this -->"
    public static let endMarker = "<!-- END generated -->"

    /// The declarations of `group`, in reading order.
    static func variables(in group: EnvironmentGroup) -> [EnvironmentVariable] {
        ServiceConfiguration.environmentVariables.filter { $0.group == group }
    }

    /// One section per group: its title, its summary, and a table of its variables.
    public static var markdown: String {
        let groups = EnvironmentGroup.allCases.filter { !variables(in: $0).isEmpty }
        var lines = ["Sections: " + groups.map { "[\($0.title)](#\(anchor($0.title)))" }.joined(separator: " · "), ""]
        for group in groups {
            let variables = variables(in: group)
            lines += ["## \(group.title)", "", group.summary, "",
                      "| variable | default | meaning | guards against |", "|---|---|---|---|"]
            for variable in variables {
                let cells = ["`\(variable.name)`", variable.defaultValue.text, variable.meaning, variable.guards]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The anchor a Markdown renderer gives a heading: lower case, spaces as hyphens, no punctuation.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            character == " " ? "-" : (character.isLetter || character.isNumber || character == "-" || character == "_") ? character : nil
        })
    }

    /// The `--help` text: usage, then every group and variable, wrapped for a terminal.
    public static var help: String {
        var lines = [
            "usage: catbird-mls-server",
            "",
            "The blue.catbird.mls delivery service. Every setting comes from the environment and is read once,",
            "at start-up; an empty variable counts as unset. A value that cannot be used refuses the start",
            "(exit status 2, one line naming the variable). Also in docs/configuration.md.",
            "Signals: SIGTERM/SIGINT shut down gracefully, SIGHUP reloads TLS_CERT_FILE and TLS_KEY_FILE.",
        ]
        for group in EnvironmentGroup.allCases {
            let variables = variables(in: group)
            guard !variables.isEmpty else { continue }
            lines += ["", group.title.uppercased()]
            for variable in variables {
                lines.append("  \(variable.name) (default: \(plain(variable.defaultValue.text)))")
                lines += wrap(plain(variable.meaning), indent: 6)
                lines += wrap("Guards against: " + plain(variable.guards), indent: 6)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Markdown's code spans as plain text.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "")
    }

    /// Words of `text` on lines of at most 100 columns, each indented by `indent`.
    static func wrap(_ text: String, indent: Int, width: Int = 100) -> [String] {
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, prefix.count + line.count + 1 + word.count > width {
                lines.append(prefix + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(prefix + line) }
        return lines
    }
}
