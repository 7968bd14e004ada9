import XCTest
@testable import HTTP

/// The inbox of an I/O loop: what other threads post, and the hint the loop reads between the
/// events of a busy round (`hasCompletions`).
final class IOLoopHandleTests: XCTestCase {
    func testHasCompletions_FollowsTheInbox() throws {
        let handle = IOLoopHandle(epoll: try Epoll.make(), wakeup: try EventFD.make(), listener: nil)
        defer {
            handle.epoll.close()
            handle.wakeup.close()
        }
        XCTAssertFalse(handle.hasCompletions)
        let completion = Completion(descriptor: 7, serial: 1, response: HTTPResponse(status: 200))
        handle.post(completion)
        handle.post(completion)
        XCTAssertTrue(handle.hasCompletions)
        XCTAssertEqual(handle.takeCompletions().count, 2)
        XCTAssertFalse(handle.hasCompletions)
        XCTAssertEqual(handle.takeCompletions().count, 0)
        handle.post(completion)
        XCTAssertTrue(handle.hasCompletions)
    }
}
