import XCTest
@testable import DeliveryService

/// msgId: exactly a ULID (26 Crockford base32 characters, either case) or a hyphenated UUID.
final class InputValidationTests: XCTestCase {
    func testMessageIDsAccepted() throws {
        for id in ["01J00000000000000000000000", "01HZZZZZZZZZZZZZZZZZZZZZZZ", "01hzyxwvtsrqpnmkjhgfedcba9",
                   "0123456789ABCDEFGHJKMNPQRS", "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"] {
            XCTAssertEqual(try InputValidation.messageID(id), id)
        }
    }

    func testMessageIDsRefused() {
        let ulid = "01J00000000000000000000000"
        var refused = ["", ulid + "0", String(ulid.dropLast()), "123e4567-e89b-12d3-a456-42661417400",
                       "123e4567e89b-12d3-a456-4266141740000", "123e4567-e89b-12d3-a456-42661417400g",
                       "123e4567-e89b-12d3-a456_426614174000", "0123456789ABCDEFGHJKMNPQR\u{e9}"]
        // Crockford's base32 leaves out I, L, O and U in both cases; punctuation is not in it either.
        for letter in ["I", "L", "O", "U", "i", "l", "o", "u", "-", "_", " ", "@", "[", "`", "{", "/", ":"] {
            refused.append(String(ulid.dropLast()) + letter)
        }
        for id in refused {
            XCTAssertThrowsError(try InputValidation.messageID(id), id.debugDescription)
        }
    }
}
