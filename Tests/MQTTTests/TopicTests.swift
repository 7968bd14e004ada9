import XCTest
@testable import MQTT

final class TopicTests: XCTestCase {
    private func name(_ value: String) -> TopicName { try! TopicName(value) }

    func testTopicNames_Validation() {
        // MQTT 5.0 §4.7.3: valid names, including spaces, '/', empty levels and '$'.
        for valid in ["a", "/", "//", "sport/tennis/player1", "/finance", "finance/", "Accounts payable", "$SYS/monitor", "ü/🎾"] {
            XCTAssertNoThrow(try TopicName(valid), valid)
        }
        XCTAssertThrowsError(try TopicName("")) { XCTAssertEqual($0 as? TopicError, .empty) }
        XCTAssertThrowsError(try TopicName("a/+")) { XCTAssertEqual($0 as? TopicError, .wildcardInTopicName) }
        XCTAssertThrowsError(try TopicName("a#")) { XCTAssertEqual($0 as? TopicError, .wildcardInTopicName) }
        XCTAssertThrowsError(try TopicName("a\u{0}b")) { XCTAssertEqual($0 as? TopicError, .containsNull) }
        XCTAssertThrowsError(try TopicName(String(repeating: "a", count: 65_536))) { XCTAssertEqual($0 as? TopicError, .tooLong(65_536)) }
        XCTAssertNoThrow(try TopicName(String(repeating: "a", count: 65_535)))
    }

    func testTopicFilters_SpecExamples() {
        // MQTT 5.0 §4.7.1.2 and §4.7.1.3 non-normative examples.
        for valid in ["#", "sport/tennis/#", "+", "+/tennis/#", "sport/+/player1", "/+", "+/+", "sport/#", "a//+/#"] {
            XCTAssertNoThrow(try TopicFilter(valid), valid)
        }
        XCTAssertThrowsError(try TopicFilter("sport/tennis#")) { XCTAssertEqual($0 as? TopicError, .misplacedMultiLevelWildcard) }
        XCTAssertThrowsError(try TopicFilter("sport/tennis/#/ranking")) { XCTAssertEqual($0 as? TopicError, .misplacedMultiLevelWildcard) }
        XCTAssertThrowsError(try TopicFilter("#/")) { XCTAssertEqual($0 as? TopicError, .misplacedMultiLevelWildcard) }
        XCTAssertThrowsError(try TopicFilter("sport+")) { XCTAssertEqual($0 as? TopicError, .misplacedSingleLevelWildcard) }
        XCTAssertThrowsError(try TopicFilter("a/+b/c")) { XCTAssertEqual($0 as? TopicError, .misplacedSingleLevelWildcard) }
        XCTAssertThrowsError(try TopicFilter("")) { XCTAssertEqual($0 as? TopicError, .empty) }
        XCTAssertThrowsError(try TopicFilter("a\u{0}")) { XCTAssertEqual($0 as? TopicError, .containsNull) }
    }

    func testSharedSubscriptionFilters() throws {
        // MQTT 5.0 §4.8.2.
        let shared = try TopicFilter("$share/consumer1/sport/tennis/+")
        XCTAssertTrue(shared.isShared)
        XCTAssertEqual(shared.shareName, "consumer1")
        XCTAssertEqual(shared.matchFilter, "sport/tennis/+")
        XCTAssertTrue(shared.matches(name("sport/tennis/p1")))
        XCTAssertEqual(try TopicFilter("$share/consumer1//finance").matchFilter, "/finance")
        for invalid in ["$share/", "$share//a", "$share/x", "$share/x/", "$share/a+/b", "$share/#/b", "$share/x/a#"] {
            XCTAssertThrowsError(try TopicFilter(invalid), invalid)
        }
        XCTAssertFalse(try TopicFilter("$shared/x/y").isShared)
        XCTAssertFalse(try TopicFilter("relay/g/+/m").isShared)
    }

    func testMatching_SpecExamples() throws {
        func matches(_ filter: String, _ topic: String) -> Bool { try! TopicFilter(filter).matches(name(topic)) }
        // §4.7.1.2.
        XCTAssertTrue(matches("sport/tennis/player1/#", "sport/tennis/player1"))
        XCTAssertTrue(matches("sport/tennis/player1/#", "sport/tennis/player1/ranking"))
        XCTAssertTrue(matches("sport/tennis/player1/#", "sport/tennis/player1/score/wimbledon"))
        XCTAssertTrue(matches("sport/#", "sport"))
        XCTAssertTrue(matches("#", "anything/at/all"))
        // §4.7.1.3.
        XCTAssertTrue(matches("sport/tennis/+", "sport/tennis/player1"))
        XCTAssertTrue(matches("sport/tennis/+", "sport/tennis/player2"))
        XCTAssertFalse(matches("sport/tennis/+", "sport/tennis/player1/ranking"))
        XCTAssertFalse(matches("sport/+", "sport"))
        XCTAssertTrue(matches("sport/+", "sport/"))
        XCTAssertTrue(matches("+/+", "/finance"))
        XCTAssertTrue(matches("/+", "/finance"))
        XCTAssertFalse(matches("+", "/finance"))
        // §4.7.2: '$' topics and wildcard-first filters.
        XCTAssertFalse(matches("#", "$SYS/monitor/Clients"))
        XCTAssertFalse(matches("+/monitor/Clients", "$SYS/monitor/Clients"))
        XCTAssertTrue(matches("$SYS/#", "$SYS/monitor/Clients"))
        XCTAssertTrue(matches("$SYS/monitor/+", "$SYS/monitor/Clients"))
        // §4.7.3: case sensitive, no normalisation, leading '/' distinct.
        XCTAssertFalse(matches("ACCOUNTS", "Accounts"))
        XCTAssertFalse(matches("finance", "/finance"))
        XCTAssertFalse(matches("caf\u{E9}", "cafe\u{301}"))
        // The Relay topics.
        XCTAssertTrue(matches("relay/g/+/m", "relay/g/6f2a/m"))
        XCTAssertFalse(matches("relay/g/+/m", "relay/g/6f2a/i"))
        XCTAssertTrue(matches("relay/k/#", "relay/k/0123"))
        XCTAssertFalse(matches("relay/k/+", "relay/k/0123/x"))
        XCTAssertTrue(matches("a//b", "a//b"))
        XCTAssertFalse(matches("a/b", "a/b/"))
    }

    func testWildcardDetection() throws {
        XCTAssertTrue(try TopicFilter("a/+").hasWildcards)
        XCTAssertTrue(try TopicFilter("#").hasWildcards)
        XCTAssertFalse(try TopicFilter("a/b").hasWildcards)
        XCTAssertTrue(try TopicFilter("$share/g/+").hasWildcards)
    }
}
