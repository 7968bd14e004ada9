import XCTest
@testable import DeliveryStore

final class ConvoCursorTests: XCTestCase {
    func test_roundTrip() throws {
        for cursor in [ConvoCursor(activityMicros: 1_790_000_000_123_456, convoID: "00ff"),
                       ConvoCursor(activityMicros: -5, convoID: String(repeating: "ab", count: 255)),
                       ConvoCursor(activityMicros: 0, convoID: "0")] {
            let text = cursor.encoded
            XCTAssertFalse(text.contains("="))
            XCTAssertFalse(text.contains("+"))
            XCTAssertFalse(text.contains("/"))
            XCTAssertEqual(try ConvoCursor(parsing: text), cursor)
        }
    }

    func test_malformed_isInvalidCursor() {
        let good = ConvoCursor(activityMicros: 42, convoID: "abcd").encoded
        let encode = { (text: String) in ConvoCursor.base64url(text) }
        let bad = [
            "", "!!!!", "a", String(good.dropLast()), good + "A", good + "=", String(repeating: "A", count: 2000),
            encode("v2 42 abcd"), encode("v1 42"), encode("v1 42 abcd extra"), encode("v1 x42 abcd"),
            encode("v1 42 ABCD"), encode("v1 42 xyz"), encode("v1 99999999999999999999 ab"), encode("v1  ab"),
            encode("v1 42 "), encode("v1 +42 ab"), encode("v1 42 " + String(repeating: "a", count: 511)),
        ]
        for text in bad {
            XCTAssertThrowsError(try ConvoCursor(parsing: text), "accepted \(text)") { error in
                XCTAssertEqual(error as? DeliveryStoreError, .invalidCursor)
            }
        }
        var invalidUTF8 = Data([0xff, 0xfe, 0x20]).base64EncodedString()
        invalidUTF8.removeAll { $0 == "=" }
        XCTAssertThrowsError(try ConvoCursor(parsing: invalidUTF8))
    }
}

extension ConvoCursor {
    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
