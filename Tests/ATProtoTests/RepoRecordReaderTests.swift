import Basics
import Foundation
import Primitives
import TestSupport
import XCTest
@testable import ATProto

/// An account's PDS and its public records: the `#atproto_pds` service of the DID document, the
/// resolver keeping it with the key, and `RepoRecordReader` against a loopback PDS (listRecords in
/// pages, getRecord, the cap, the deadline, the scheme rule).
final class RepoRecordReaderTests: XCTestCase {
    private let did = Fixtures.randomPLC()

    private func document(services: String) -> [UInt8] {
        Array("""
        {"id":"\(did)","verificationMethod":[],"service":[\(services)]}
        """.utf8)
    }

    func testPDSEndpoint_FromTheAtprotoPDSServiceOnly() throws {
        func endpoint(_ services: String) throws -> String? { try DIDDocument.parse(document(services: services)).pdsEndpoint(for: did) }
        let pds = ##"{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://pds.example.com/"}"##
        XCTAssertEqual(try endpoint(pds), "https://pds.example.com", "the trailing slash goes")
        XCTAssertEqual(try endpoint(#"{"id":"\#(did)#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://a.example"}"#),
                       "https://a.example")
        XCTAssertNil(try endpoint(""), "no service")
        XCTAssertNil(try endpoint(##"{"id":"#atproto_pds","type":"Other","serviceEndpoint":"https://a.example"}"##), "wrong type")
        XCTAssertNil(try endpoint(pds + "," + pds), "named twice")
        XCTAssertNil(try endpoint(##"{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"ftp://a.example"}"##))
        XCTAssertNil(try endpoint(##"{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://u:p@a.example"}"##))
        XCTAssertNil(try endpoint(##"{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://a.example/?x=1"}"##))
        XCTAssertNil(try endpoint(##"{"id":"#other","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://a.example"}"##))
    }

    func testTheResolverKeepsThePDSWithTheKey() throws {
        let plc = try LoopbackHTTPServer()
        defer { plc.stop() }
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: key))
        let resolver = DIDResolver(configuration: ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL,
                                                                           allowPrivateAddresses: true))
        XCTAssertNil(resolver.cachedPDSEndpoint(for: did), "never fetches")
        XCTAssertEqual(try resolver.pdsEndpoint(for: did), "https://pds.example.com")
        XCTAssertEqual(resolver.cachedPDSEndpoint(for: did), "https://pds.example.com")
        XCTAssertEqual(try resolver.signingKey(for: did, forceRefresh: false).publicKey.uncompressed, key.publicKey.uncompressed)
        XCTAssertEqual(plc.requestCount("/\(did)"), 1, "one document for both")
    }

    func testListRecords_PagesUpToTheCap_AndGetRecord() throws {
        let pds = try LoopbackPDS()
        defer { pds.stop() }
        let followed = (0..<250).map { _ in Fixtures.randomPLC().rawValue }
        for subject in followed { pds.follow(did.rawValue, subject) }
        pds.follow(did.rawValue, "not a did")
        let reader = RepoRecordReader(requestTimeout: 3, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        let deadline = Date().addingTimeInterval(10)

        let all = try reader.subjects(of: did, pds: pds.baseURL, collection: LoopbackPDS.followCollection, maxRecords: 1000, deadline: deadline)
        XCTAssertEqual(all, RepoRecordReader.Subjects(dids: Set(followed), complete: true), "a record without a DID subject is skipped")
        XCTAssertEqual(pds.readCount(did.rawValue, LoopbackPDS.followCollection), 3, "pages of 100")

        let capped = try reader.subjects(of: did, pds: pds.baseURL, collection: LoopbackPDS.followCollection, maxRecords: 150, deadline: deadline)
        XCTAssertFalse(capped.complete)
        XCTAssertEqual(capped.dids.count, 200, "stops after the page that reached the cap")

        let none = try reader.subjects(of: did, pds: pds.baseURL, collection: LoopbackPDS.blockCollection, maxRecords: 1000, deadline: deadline)
        XCTAssertEqual(none, RepoRecordReader.Subjects(dids: [], complete: true))

        XCTAssertNil(try reader.record(of: did, pds: pds.baseURL, collection: LoopbackPDS.policyCollection, rkey: "self", deadline: deadline),
                     "RecordNotFound: no record")
        pds.setPolicy(did.rawValue, #""whoCanMessageMe":"following","allowFollowersBypass":true,"autoExpireDays":7"#)
        let record = try XCTUnwrap(try reader.record(of: did, pds: pds.baseURL, collection: LoopbackPDS.policyCollection, rkey: "self",
                                                     deadline: deadline))
        XCTAssertEqual(record["whoCanMessageMe"], .string("following"))
        XCTAssertEqual(record["allowFollowersBypass"], .bool(true))
        XCTAssertEqual(record["autoExpireDays"], .other)
    }

    func testFailuresAreUnavailable() throws {
        let reader = RepoRecordReader(requestTimeout: 1, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        let strict = RepoRecordReader(requestTimeout: 1, maxBodySize: 1 << 20, allowPrivateAddresses: false)
        let pds = try LoopbackPDS()
        let hanging = try LoopbackPDS(hanging: true)
        let broken = try LoopbackHTTPServer()
        defer { pds.stop(); hanging.stop(); broken.stop() }
        broken.setFallback(.raw(LoopbackHTTPServer.jsonResponse(#"{"records":"many"}"#)))
        let deadline = Date().addingTimeInterval(10)
        func read(_ reader: RepoRecordReader, _ pds: String) throws {
            _ = try reader.subjects(of: did, pds: pds, collection: LoopbackPDS.blockCollection, maxRecords: 100, deadline: deadline)
        }
        XCTAssertThrowsError(try read(strict, pds.baseURL), "plain http only where private addresses are allowed")
        XCTAssertThrowsError(try read(strict, "https://127.0.0.1:1"), "the SSRF guard")
        XCTAssertThrowsError(try read(reader, broken.baseURL), "not a listing")
        let start = Date()
        XCTAssertThrowsError(try read(reader, hanging.baseURL))
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "one request's deadline")
        XCTAssertThrowsError(try reader.subjects(of: did, pds: pds.baseURL, collection: LoopbackPDS.blockCollection, maxRecords: 100,
                                                 deadline: Date()), "no time left")
    }

    func testTheCacheBoundsWeight() {
        var cache = ResolutionCache<Int, [Int], AuthError>(freshFor: 60, hardExpiry: 600, negativeFor: 10, transientFor: 10,
                                                           capacity: 100, weigh: { $0.count })
        let now = Date()
        cache.store(Array(0..<60), for: 1, now: now)
        cache.store(Array(0..<30), for: 2, now: now.addingTimeInterval(1))
        XCTAssertEqual(cache.totalWeight, 90)
        cache.store(Array(0..<20), for: 3, now: now.addingTimeInterval(2))
        XCTAssertLessThanOrEqual(cache.totalWeight, 100)
        XCTAssertEqual(cache.lookup(3, now: now.addingTimeInterval(3)), .fresh(Array(0..<20)), "the newest stays")
        XCTAssertEqual(cache.lookup(1, now: now.addingTimeInterval(3)), .miss, "the oldest, heaviest went")
        cache.store(Array(0..<25), for: 3, now: now.addingTimeInterval(4))
        XCTAssertLessThanOrEqual(cache.totalWeight, 100, "a replaced value's weight is given back")
    }
}
