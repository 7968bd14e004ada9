@testable import DeliveryService
import Push
import XCTest

/// What the worker does after each answer (docs/push.md, "Failure handling"), without a clock.
final class PushRetryPolicyTests: XCTestCase {
    let policy = PushRetryPolicy(baseDelay: 1, maxDelay: 300, deadline: 3600)

    func testRetries_BackOffExponentially_WithJitterInTheUpperHalf_UpToFiveMinutes() {
        let retry = PushOutcome.retry(reason: "status_503", retryAfter: nil)
        for (attempts, full) in [(1, 1.0), (2, 2), (3, 4), (6, 32), (9, 256), (10, 300), (40, 300)] {
            XCTAssertEqual(policy.decide(retry, attempts: attempts, age: 0, random: 0), .retry(after: full / 2))
            XCTAssertEqual(policy.decide(retry, attempts: attempts, age: 0, random: 0.999_999), .retry(after: full * (0.5 + 0.5 * 0.999_999)))
        }
    }

    func testRetryAfter_IsAFloor() {
        XCTAssertEqual(policy.decide(.retry(reason: "TooManyRequests", retryAfter: 120), attempts: 1, age: 0, random: 0.5), .retry(after: 120))
        XCTAssertEqual(policy.decide(.retry(reason: "TooManyRequests", retryAfter: 0), attempts: 5, age: 0, random: 0), .retry(after: 8))
    }

    func testTheDeadline_EndsRetries() {
        XCTAssertEqual(policy.decide(.retry(reason: "network", retryAfter: nil), attempts: 10, age: 3500, random: 1), .drop)
        XCTAssertEqual(policy.decide(.retry(reason: "network", retryAfter: 200), attempts: 1, age: 3500, random: 0), .drop)
        XCTAssertEqual(policy.decide(.retry(reason: "network", retryAfter: nil), attempts: 1, age: 3500, random: 0), .retry(after: 0.5))
    }

    func testOtherOutcomes() {
        XCTAssertEqual(policy.decide(.delivered, attempts: 1, age: 0, random: 0), .delivered)
        XCTAssertEqual(policy.decide(.invalidToken(reason: "Gone"), attempts: 1, age: 0, random: 0), .removeToken)
        XCTAssertEqual(policy.decide(.rejected(reason: "status_413"), attempts: 1, age: 0, random: 0), .drop)
        XCTAssertEqual(PushDispatcher.failureReason(.retry(reason: "network", retryAfter: nil)), "expired")
        XCTAssertEqual(PushDispatcher.failureReason(.rejected(reason: "BadTopic")), "BadTopic")
    }
}
