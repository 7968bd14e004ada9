import Basics
import TestSupport
import XCTest
import Primitives
@testable import ATProto

/// Resolution against the loopback PLC directory with a hand-moved clock.
final class DIDResolverTests: XCTestCase {
    private var plc: LoopbackHTTPServer!
    private let clock = TestClock()
    private var resolver: DIDResolver!
    private let key = try! ECDSAPrivateKey.generate(curve: .secp256k1)
    private let did = Fixtures.randomPLC()

    override func setUpWithError() throws {
        plc = try LoopbackHTTPServer()
        resolver = DIDResolver(configuration: ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL + "/",
                                                                       allowPrivateAddresses: true),
                               clock: clock.closure)
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: key))
    }

    override func tearDown() {
        plc.stop()
    }

    private var fetches: Int { plc.requestCount("/\(did)") }

    private func failPLC(status: Int = 500) {
        plc.set("/\(did)", .raw(Array("HTTP/1.1 \(status) Oops\r\nContent-Length: 0\r\n\r\n".utf8)))
    }

    func testResolvesAndCachesForAnHour() throws {
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: false).publicKey.uncompressed, key.publicKey.uncompressed)
        clock.advance(by: 3599)
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        XCTAssertEqual(fetches, 1)
        clock.advance(by: 2)
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        XCTAssertEqual(fetches, 2, "refreshed after an hour")
    }

    func testStaleKeyServedWhileDirectoryFailsUntilHardExpiry() throws {
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        failPLC()
        clock.advance(by: 2 * 3600)
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: false).publicKey.uncompressed, key.publicKey.uncompressed)
        XCTAssertEqual(fetches, 2, "a refresh was attempted")
        clock.advance(by: 22 * 3600 + 1)
        XCTAssertThrowsError(try resolver.signingKey(for: did, forceRefresh: false)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwtSignature")
        }
    }

    func testNotFoundIsCachedForTwoMinutes() throws {
        let missing = Fixtures.randomPLC()
        for _ in 0..<3 {
            XCTAssertThrowsError(try resolver.signingKey(for: missing, forceRefresh: false))
            clock.advance(by: 30)
        }
        XCTAssertEqual(plc.requestCount("/\(missing)"), 1)
        clock.advance(by: 31)
        XCTAssertThrowsError(try resolver.signingKey(for: missing, forceRefresh: false))
        XCTAssertEqual(plc.requestCount("/\(missing)"), 2)
    }

    func testTransientFailuresAreNotCached() throws {
        failPLC(status: 503)
        XCTAssertThrowsError(try resolver.signingKey(for: did, forceRefresh: false))
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: key))
        XCTAssertNoThrow(try resolver.signingKey(for: did, forceRefresh: false))
        XCTAssertEqual(fetches, 2)
    }

    func testRedirectFromDirectoryIsAFailure() throws {
        plc.set("/\(did)", .raw(Array("HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1/x\r\nContent-Length: 0\r\n\r\n".utf8)))
        XCTAssertThrowsError(try resolver.signingKey(for: did, forceRefresh: false))
    }

    func testForcedRefreshIsRateLimited() throws {
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        _ = try resolver.signingKey(for: did, forceRefresh: true)
        _ = try resolver.signingKey(for: did, forceRefresh: true)
        XCTAssertEqual(fetches, 2)
        clock.advance(by: 59)
        _ = try resolver.signingKey(for: did, forceRefresh: true)
        XCTAssertEqual(fetches, 2)
        clock.advance(by: 1)
        _ = try resolver.signingKey(for: did, forceRefresh: true)
        XCTAssertEqual(fetches, 3)
    }

    func testForcedRefreshPicksUpNewKey() throws {
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        let rotated = try ECDSAPrivateKey.generate(curve: .p256)
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: rotated))
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: false).curve, .secp256k1, "cached")
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: true).curve, .p256)
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: false).curve, .p256, "the refresh updated the cache")
    }

    func testSSRFGuardAppliesToResolution() throws {
        let guarded = DIDResolver(configuration: ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL),
                                  clock: clock.closure)
        XCTAssertThrowsError(try guarded.signingKey(for: did, forceRefresh: false)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwtSignature")
            XCTAssertTrue(($0 as? AuthError)?.message.contains("forbiddenAddress") ?? false, "\($0)")
        }
        XCTAssertEqual(plc.totalRequests, 0)
    }

    func testDidWebLocalhostUsesHTTPAndPort() throws {
        let web = try DID("did:web:localhost%3A\(plc.port)")
        XCTAssertEqual(resolver.documentURL(for: web), "http://localhost:\(plc.port)/.well-known/did.json")
        plc.setJSON("/.well-known/did.json", Fixtures.multikeyDocument(did: web, key: key))
        XCTAssertEqual(try resolver.signingKey(for: web, forceRefresh: false).publicKey.uncompressed, key.publicKey.uncompressed)
    }

    func testDocumentURLs() throws {
        XCTAssertEqual(resolver.documentURL(for: try DID("did:web:pds.Example.com")), "https://pds.example.com/.well-known/did.json")
        XCTAssertEqual(resolver.documentURL(for: did), "\(plc.baseURL)/\(did)")
    }
}
