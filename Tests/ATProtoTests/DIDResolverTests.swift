import Basics
import Dispatch
import Foundation
import Primitives
import Synchronization
import TestSupport
import XCTest
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

    func testTransientFailuresAreCachedForTenSeconds() throws {
        failPLC(status: 503)
        XCTAssertThrowsError(try resolver.signingKey(for: did, forceRefresh: false))
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: key))
        clock.advance(by: 9)
        XCTAssertThrowsError(try resolver.signingKey(for: did, forceRefresh: false), "the failure is remembered")
        XCTAssertEqual(fetches, 1)
        clock.advance(by: 1)
        XCTAssertNoThrow(try resolver.signingKey(for: did, forceRefresh: false))
        XCTAssertEqual(fetches, 2)
    }

    func testCacheOnlyLookup_NeverFetches_AndServesAStaleKeyWhileRefreshingBehindIt() throws {
        XCTAssertEqual(resolver.cachedKey(for: did), .missing)
        XCTAssertEqual(fetches, 0, "asking the cache touches no network")
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        let rotated = try ECDSAPrivateKey.generate(curve: .p256)
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: rotated))
        clock.advance(by: 3601)
        // Stale: the old key at once, and a refresh queued behind it.
        XCTAssertEqual(resolver.cachedKey(for: did), .key(AtprotoSigningKey(publicKey: key.publicKey)!))
        waitUntilIdle()
        XCTAssertEqual(fetches, 2)
        XCTAssertEqual(resolver.cachedKey(for: did), .key(AtprotoSigningKey(publicKey: rotated.publicKey)!))
    }

    func testAFailedBackgroundRefreshKeepsTheKey_AndIsRetriedOnlyAfterTenSeconds() throws {
        _ = try resolver.signingKey(for: did, forceRefresh: false)
        failPLC()
        clock.advance(by: 3601)
        XCTAssertEqual(resolver.cachedKey(for: did), .key(AtprotoSigningKey(publicKey: key.publicKey)!))
        waitUntilIdle()
        XCTAssertEqual(fetches, 2)
        for _ in 0..<5 { XCTAssertEqual(resolver.cachedKey(for: did), .key(AtprotoSigningKey(publicKey: key.publicKey)!)) }
        waitUntilIdle()
        XCTAssertEqual(fetches, 2, "no refresh within ten seconds of the failed one")
        clock.advance(by: 10)
        _ = resolver.cachedKey(for: did)
        waitUntilIdle()
        XCTAssertEqual(fetches, 3)
    }

    /// Concurrent requests for one DID share one fetch: every waiter is called once it ends.
    func testSingleFlight_ManyRequestsForOneDID_FetchOnce() throws {
        let gate = LoopbackHTTPServer.Gate()
        plc.set("/\(did)", .gated(gate, LoopbackHTTPServer.jsonResponse(Fixtures.multikeyDocument(did: did, key: key))))
        let called = DispatchGroup()
        var admissions: [DIDResolver.Admission] = []
        for _ in 0..<50 {
            called.enter()
            admissions.append(resolver.fetch(did, forced: false) { called.leave() })
        }
        XCTAssertEqual(admissions.first, .started)
        XCTAssertEqual(admissions.dropFirst().filter { $0 == .joined }.count, 49)
        gate.open()
        XCTAssertEqual(called.wait(timeout: .now() + 10), .success, "every waiter is told")
        XCTAssertEqual(fetches, 1)
        XCTAssertEqual(resolver.cachedKey(for: did), .key(AtprotoSigningKey(publicKey: key.publicKey)!))
        XCTAssertEqual(resolver.fetch(did, forced: false) {}, .ready, "the cache answers now")
        XCTAssertEqual(fetches, 1)
    }

    /// At most `maxFetchesPerHost` fetches to one host run at once, the others wait in the queue;
    /// another host is not held up by them, and a full queue refuses at once.
    func testCaps_PerHostAndQueue() throws {
        var configuration = ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL, allowPrivateAddresses: true)
        configuration.maxFetches = 3
        configuration.maxFetchesPerHost = 2
        configuration.maxQueuedFetches = 4
        let resolver = DIDResolver(configuration: configuration, clock: clock.closure)
        let gate = LoopbackHTTPServer.Gate()
        let dids = (0..<4).map { _ in Fixtures.randomPLC() }
        for did in dids {
            plc.set("/\(did)", .gated(gate, LoopbackHTTPServer.jsonResponse(Fixtures.multikeyDocument(did: did, key: key))))
        }
        let done = DispatchGroup()
        for did in dids {
            done.enter()
            XCTAssertEqual(resolver.fetch(did, forced: false) { done.leave() }, .started)
        }
        waitUntil { gate.waitingCount == 2 }
        XCTAssertEqual(resolver.pendingFetches.running, 2, "two to the PLC host")
        XCTAssertEqual(resolver.pendingFetches.queued, 2)
        // did:web:localhost is another host: it runs beside them.
        let web = try DID("did:web:localhost%3A\(plc.port)")
        plc.set("/.well-known/did.json", .gated(gate, LoopbackHTTPServer.jsonResponse(Fixtures.multikeyDocument(did: web, key: key))))
        done.enter()
        XCTAssertEqual(resolver.fetch(web, forced: false) { done.leave() }, .started)
        waitUntil { gate.waitingCount == 3 }
        XCTAssertEqual(resolver.pendingFetches.running, 3)
        // The queue holds four: a fifth is refused without waiting.
        XCTAssertEqual(resolver.fetch(Fixtures.randomPLC(), forced: false) {}, .started)
        XCTAssertEqual(resolver.fetch(Fixtures.randomPLC(), forced: false) {}, .started)
        XCTAssertEqual(resolver.pendingFetches.queued, 4)
        XCTAssertEqual(resolver.fetch(Fixtures.randomPLC(), forced: false) {}, .refused)
        XCTAssertThrowsError(try resolver.signingKey(for: Fixtures.randomPLC(), forceRefresh: false)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "ServiceUnavailable")
            XCTAssertEqual(($0 as? AuthError)?.status, 503)
        }
        gate.open()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        for _ in 0..<1000 where resolver.pendingFetches != (0, 0) { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(plc.totalRequests, 7)
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

    /// The refusal's detail goes to the diagnostics (the log), never to the caller.
    func testSSRFGuardAppliesToResolution_AndItsDetailIsNotReturned() throws {
        let details = Mutex<[String]>([])
        let guarded = DIDResolver(configuration: ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL),
                                  clock: clock.closure, diagnostics: { _, detail in details.withLock { $0.append(detail) } })
        XCTAssertThrowsError(try guarded.signingKey(for: did, forceRefresh: false)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwtSignature")
            XCTAssertEqual(($0 as? AuthError)?.message, "could not fetch the DID document of \(did)")
        }
        XCTAssertEqual(details.withLock { $0.count }, 1)
        XCTAssertTrue(details.withLock { $0[0] }.contains("forbiddenAddress"), details.withLock { $0[0] })
        XCTAssertEqual(plc.totalRequests, 0)
    }

    /// Waits for the resolver's background work; bounded, so a fetch that never ends fails the test.
    private func waitUntilIdle(file: StaticString = #filePath, line: UInt = #line) {
        waitUntil(file: file, line: line) { self.resolver.pendingFetches == (0, 0) }
    }

    private func waitUntil(file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        for _ in 0..<1000 where !condition() { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(condition(), "not reached", file: file, line: line)
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
