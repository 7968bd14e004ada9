import Foundation
import XCTest

/// README.md and every document under docs/: each relative link names a file of the repository, and
/// each `#anchor` into a Markdown file names one of its headings.
final class DocumentLinkTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func documents() throws -> [String] {
        let docs = root.appendingPathComponent("docs")
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: docs.path))
        let files = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        return ["README.md"] + files.sorted()
    }

    func testEveryRelativeLinkAndAnchorResolves() throws {
        let check = MarkdownLinks(root: Self.root)
        var checked = 0
        for file in try Self.documents() {
            checked += try check.links(in: file).count
            for (link, problem) in try check.broken(in: file) {
                XCTFail("\(link): \(problem)")
            }
        }
        XCTAssertGreaterThan(checked, 30, "so few links: is the parser reading the documents?")
    }

    /// The check itself: what it must refuse and what it must let through.
    func testTheCheck_RefusesMissingFilesAndAnchors_AndIgnoresCodeAndExternalLinks() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try """
        # Title
        ## The `MQTT_PORT` listener, [linked](x.md)
        ## Notes
        ## Notes
        <a name="explicit"></a>
        """.write(to: root.appendingPathComponent("docs/b.md"), atomically: true, encoding: .utf8)
        try """
        [ok](docs/b.md) [ok](docs/b.md#the-mqtt_port-listener-linked) [ok](docs/b.md#notes-1) [ok](docs/b.md#explicit)
        [ok](#here) [ok](docs/) ![ok](docs/b.md "title") [ok](https://example.com/missing) [ok](mailto:a@b.c)
        `[ignored](missing.md)`
        ```
        [ignored](missing.md)
        ```
        ## Here
        [bad1](docs/missing.md) [bad2](docs/b.md#nowhere) [bad3](#there) [bad4](../outside.md)
        [bad5]: docs/gone.md
        """.write(to: root.appendingPathComponent("a.md"), atomically: true, encoding: .utf8)
        let check = MarkdownLinks(root: root)
        XCTAssertEqual(try check.links(in: "a.md").count, 12)
        let broken = try check.broken(in: "a.md")
        XCTAssertEqual(broken.map(\.0.target), ["docs/missing.md", "docs/b.md#nowhere", "#there", "../outside.md", "docs/gone.md"])
        XCTAssertEqual(broken.map(\.1), ["no such file", "no heading or anchor #nowhere", "no heading or anchor #there",
                                         "points outside the repository", "no such file"])
        XCTAssertEqual(broken.first?.0.line, 8)
    }
}
