@testable import DeliveryService
import XCTest

/// The small parsers behind uploadBlob and getBlob: Range headers, media types, blob ids.
final class BlobParsingTests: XCTestCase {
    func test_byteRange_singleRanges() {
        XCTAssertEqual(ByteRange.resolve(nil, size: 100), .whole)
        XCTAssertEqual(ByteRange.resolve("bytes=0-9", size: 100), .partial(offset: 0, length: 10))
        XCTAssertEqual(ByteRange.resolve("bytes=90-", size: 100), .partial(offset: 90, length: 10))
        XCTAssertEqual(ByteRange.resolve("bytes=-10", size: 100), .partial(offset: 90, length: 10))
        XCTAssertEqual(ByteRange.resolve("bytes=-500", size: 100), .partial(offset: 0, length: 100))
        XCTAssertEqual(ByteRange.resolve("bytes=50-500", size: 100), .partial(offset: 50, length: 50))
        XCTAssertEqual(ByteRange.resolve("BYTES = 5-5 ", size: 100), .whole, "no space allowed before '='")
        XCTAssertEqual(ByteRange.resolve("Bytes=5-5", size: 100), .partial(offset: 5, length: 1))
        XCTAssertEqual(ByteRange.resolve("bytes=99-99", size: 100), .partial(offset: 99, length: 1))
    }

    func test_byteRange_unsatisfiable() {
        XCTAssertEqual(ByteRange.resolve("bytes=100-", size: 100), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=100-200", size: 100), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=-0", size: 100), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=99999999999999999999999-", size: 100), .unsatisfiable, "overflow saturates")
    }

    func test_byteRange_malformedTruncatedOversized_areIgnored() {
        for header in ["", "bytes", "bytes=", "bytes=-", "bytes=a-b", "bytes=5", "bytes=9-3", "items=0-1",
                       "bytes=0-1,3-4", "bytes=1-2-3", "bytes=--1", "bytes=+1-2", "bytes=0x1-2",
                       "bytes=0-" + String(repeating: "9", count: 300)] {
            XCTAssertEqual(ByteRange.resolve(header, size: 100), .whole, header)
        }
        XCTAssertEqual(ByteRange.resolve("bytes=0-99999999999999999999999", size: 100), .partial(offset: 0, length: 100))
    }

    func test_mediaType_boundsAndSyntax() throws {
        XCTAssertEqual(try BlobMediaType.from(contentType: nil), "application/octet-stream")
        XCTAssertEqual(try BlobMediaType.from(contentType: "  "), "application/octet-stream")
        XCTAssertEqual(try BlobMediaType.from(contentType: " image/jpeg "), "image/jpeg")
        XCTAssertEqual(try BlobMediaType.from(contentType: "text/plain; charset=utf-8"), "text/plain; charset=utf-8")
        XCTAssertEqual(try BlobMediaType.from(contentType: "application/vnd.catbird+enc"), "application/vnd.catbird+enc")
        for bad in ["image", "/jpeg", "image/", "a/b/c", "im age/jpeg", "image/jpeg\u{7}", "image/jpég",
                    "application/" + String(repeating: "x", count: 250)] {
            XCTAssertThrowsError(try BlobMediaType.from(contentType: bad), bad)
        }
    }

    func test_blobID_isBase32Of128Bits_andFormIsChecked() {
        XCTAssertEqual(BlobID.encode([0xff, 0x00]), "74aa")
        XCTAssertEqual(BlobID.encode(Array("foobar".utf8)), "mzxw6ytboi", "RFC 4648 §10, lowercase, unpadded")
        let ids = (0..<100).map { _ in BlobID.generate() }
        XCTAssertEqual(Set(ids).count, 100)
        XCTAssertTrue(ids.allSatisfy(BlobID.isWellFormed))
        for bad in ["", "abc", String(repeating: "a", count: 27), String(repeating: "A", count: 26),
                    String(repeating: "1", count: 26), String(repeating: "a", count: 25) + "="] {
            XCTAssertFalse(BlobID.isWellFormed(bad), bad)
        }
    }
}
