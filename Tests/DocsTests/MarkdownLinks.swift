import Foundation

/// The relative links of Markdown files and whether they resolve: the file (or folder) a link names
/// exists inside the repository, and its `#fragment`, when it points into a Markdown file, is one of
/// that file's anchors as GitHub renders them. Links inside code (fenced blocks, `spans`) and links
/// with a scheme (`https:`, `mailto:`) are not checked.
struct MarkdownLinks {
    let root: URL

    struct Link: Equatable, CustomStringConvertible {
        let file: String
        let line: Int
        let target: String
        var description: String { "\(file):\(line): \(target)" }
    }

    /// The links of `file` (a path relative to the root) that do not resolve, each with why.
    func broken(in file: String) throws -> [(Link, String)] {
        try links(in: file).compactMap { link in problem(of: link).map { (link, $0) } }
    }

    /// Every relative link of `file`, in order.
    func links(in file: String) throws -> [Link] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        var links: [Link] = []
        for (index, line) in Self.proseLines(text) {
            let prose = Self.withoutCodeSpans(line)
            var targets = Self.matches(of: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#, in: prose)
            targets += Self.matches(of: #"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?"#, in: prose)
            for target in targets where !Self.hasScheme(target) {
                links.append(Link(file: file, line: index + 1, target: target))
            }
        }
        return links
    }

    /// Why `link` does not resolve, or nil.
    func problem(of link: Link) -> String? {
        let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : nil
        let base = root.appendingPathComponent(link.file).deletingLastPathComponent()
        let target = path.isEmpty ? root.appendingPathComponent(link.file) : base.appendingPathComponent(path)
        let resolved = target.standardizedFileURL.path
        guard resolved == root.standardizedFileURL.path || resolved.hasPrefix(root.standardizedFileURL.path + "/") else {
            return "points outside the repository"
        }
        guard FileManager.default.fileExists(atPath: resolved) else { return "no such file" }
        guard let fragment, resolved.hasSuffix(".md") else { return nil }
        guard let text = try? String(contentsOfFile: resolved, encoding: .utf8) else { return "unreadable" }
        return Self.anchors(of: text).contains(fragment.removingPercentEncoding ?? fragment)
            ? nil : "no heading or anchor #\(fragment)"
    }

    /// The anchors of a Markdown text: each heading's GitHub slug (a repeated one gets -1, -2, …)
    /// and every explicit `<a name="…">` or `id="…"`.
    static func anchors(of text: String) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        for (_, line) in proseLines(text) {
            if let heading = matches(of: #"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$"#, in: line).first {
                let slug = self.slug(heading)
                let count = seen[slug, default: 0]
                seen[slug] = count + 1
                anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
            }
            anchors.formUnion(matches(of: #"<a\s+(?:name|id)="([^"]+)""#, in: line))
        }
        return anchors
    }

    /// GitHub's anchor for a heading: its text without markup, lower-cased, punctuation dropped,
    /// spaces as hyphens.
    static func slug(_ heading: String) -> String {
        var text = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        text = text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "*", with: "")
        return String(text.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    /// The lines outside fenced code blocks, with their 0-based numbers.
    static func proseLines(_ text: String) -> [(Int, String)] {
        var result: [(Int, String)] = []
        var fence: String?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            result.append((index, line))
        }
        return result
    }

    static func withoutCodeSpans(_ line: String) -> String {
        line.replacingOccurrences(of: #"(`+)[^`]*?\1"#, with: "", options: .regularExpression)
    }

    static func hasScheme(_ target: String) -> Bool {
        target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil
    }

    /// The first capture group of every match of `pattern` in `text`.
    static func matches(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
