import Basics
import Foundation
import JSON
import XCTest

/// Holds a `JSONObjectDecodable` type's direct path to its Codable path: on every document, both
/// decode to equal values or both fail with the same error; what decodes encodes to the same bytes.
enum DirectCodingAgreement {
    /// Values that replace a member in the variants: each JSON kind, numbers at and past the integer
    /// limits, integral numbers written with a fraction or exponent, both `$bytes` forms and bad base64.
    static var replacements: [Any] { [
        "x", "", "AAAA", "aGVsbG8=", "!!", 0, 7, -1, 1.5, 1e3, "1", true, false, NSNull(),
        Decimal(string: "9223372036854775807")!, Decimal(string: "9223372036854775808")!,
        Decimal(string: "-9223372036854775809")!, Decimal(string: "2147483648")!, Decimal(string: "4294967296")!,
        [Any](), ["a"], [1], [["$bytes": "AAAA"]], [String: Any](), ["$bytes": "AAAA"], ["$bytes": "!!"],
        ["$bytes": 1], ["name": "n"],
    ] }

    /// The sample, each replacement as the whole document, then for each member at any depth: removed, and replaced by each of `replacements`;
    /// then `randomCount` documents with two to four such edits at once.
    static func variants(of sample: [UInt8], randomCount: Int = 300, seed: UInt64 = 0x5EED) -> [[UInt8]] {
        let root = try! JSONSerialization.jsonObject(with: Data(sample))
        var documents = [sample] + replacements.map(serialize)
        let paths = memberPaths(root)
        for path in paths {
            documents.append(serialize(edit(root, at: path[...], to: nil)))
            for replacement in replacements {
                documents.append(serialize(edit(root, at: path[...], to: replacement)))
            }
        }
        let replacements = replacements
        var random = SplitMix64(seed: seed)
        for _ in 0..<randomCount {
            var value = root
            for _ in 0..<(2 + Int(random.next() % 3)) {
                let current = memberPaths(value)
                guard !current.isEmpty else { break }
                let path = current[Int(random.next() % UInt64(current.count))]
                let choice = Int(random.next() % UInt64(replacements.count + 1))
                value = edit(value, at: path[...], to: choice == replacements.count ? nil : replacements[choice])
            }
            documents.append(serialize(value))
        }
        return documents
    }

    /// For a type that only decodes directly, the encodings still compare its direct members.
    static func assertAgree<T: JSONObjectDecodable & Encodable & Equatable>(
        _ type: T.Type, on documents: [[UInt8]], file: StaticString = #filePath, line: UInt = #line
    ) -> (decoded: Int, refused: Int) {
        var decoded = 0, refused = 0
        for document in documents {
            let text = String(decoding: document, as: UTF8.self)
            let direct = Result { try StrictJSON.decode(T.self, from: document) }
            let codable = Result { try StrictJSON.decode(T.self, from: document, objects: .codable) }
            switch (direct, codable) {
            case let (.success(first), .success(second)):
                decoded += 1
                XCTAssertEqual(first, second, text, file: file, line: line)
                let directBytes = try? StrictJSON.encode(first)
                let codableBytes = try? StrictJSON.encode(first, objects: .codable)
                XCTAssertNotNil(directBytes, text, file: file, line: line)
                XCTAssertEqual(directBytes, codableBytes, text, file: file, line: line)
            case let (.failure(first), .failure(second)):
                refused += 1
                XCTAssertEqual("\(first)", "\(second)", text, file: file, line: line)
            default:
                XCTFail("the paths disagree on \(text): direct \(direct), Codable \(codable)", file: file, line: line)
            }
        }
        return (decoded, refused)
    }

    // MARK: Editing parsed documents

    private enum Step { case key(String), index(Int) }

    private static func memberPaths(_ value: Any) -> [[Step]] {
        var paths: [[Step]] = []
        func walk(_ value: Any, _ prefix: [Step]) {
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() {
                    paths.append(prefix + [.key(key)])
                    walk(object[key]!, prefix + [.key(key)])
                }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() {
                    paths.append(prefix + [.index(index)])
                    walk(element, prefix + [.index(index)])
                }
            }
        }
        walk(value, [])
        return paths
    }

    /// `value` with the member at `path` replaced (nil: removed).
    private static func edit(_ value: Any, at path: ArraySlice<Step>, to replacement: Any?) -> Any {
        guard let step = path.first else { return replacement ?? NSNull() }
        let rest = path.dropFirst()
        switch step {
        case .key(let key):
            var object = value as! [String: Any]
            if rest.isEmpty, replacement == nil {
                object[key] = nil
            } else {
                object[key] = edit(object[key]!, at: rest, to: replacement)
            }
            return object
        case .index(let index):
            var array = value as! [Any]
            if rest.isEmpty, replacement == nil {
                array.remove(at: index)
            } else {
                array[index] = edit(array[index], at: rest, to: replacement)
            }
            return array
        }
    }

    private static func serialize(_ value: Any) -> [UInt8] {
        [UInt8](try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]))
    }
}
