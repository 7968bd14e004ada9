import XCTest

/// A test case class sharing one running service (and database) across its tests. If the service
/// cannot start, every test fails with the reason instead of crashing the run.
class ServiceTestCase: XCTestCase {
    nonisolated(unsafe) private static var harnesses: [ObjectIdentifier: Result<ServiceHarness, Error>] = [:]

    /// Variables the class's service runs with, beside the harness's own.
    class var environment: [String: String] { [:] }

    override class func setUp() {
        super.setUp()
        harnesses[ObjectIdentifier(self)] = Result { try makeHarness() }
    }

    /// The service a test class shares; a class that needs other settings overrides this.
    class func makeHarness() throws -> ServiceHarness { try ServiceHarness(environment: environment) }

    override class func tearDown() {
        if case .success(let harness) = harnesses.removeValue(forKey: ObjectIdentifier(self)) { harness.shutdown() }
        super.tearDown()
    }

    var service: ServiceHarness {
        get throws {
            guard let result = Self.harnesses[ObjectIdentifier(type(of: self))] else {
                throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "service not started"])
            }
            return try result.get()
        }
    }
}
