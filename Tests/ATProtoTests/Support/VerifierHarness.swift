import Basics
import TestSupport
import Foundation
import Primitives
import XCTest
@testable import ATProto

/// A PLC directory on loopback, a hand-moved clock, two real users (secp256k1 and P-256) with
/// published DID documents, and helpers to mint good and deliberately broken tokens.
final class VerifierHarness {
    let plc: LoopbackHTTPServer
    let clock = TestClock()
    let configuration: ServiceAuthConfiguration
    let resolver: DIDResolver
    let replayStore: any ReplayStore
    let verifier: ServiceAuthVerifier
    let k256 = try! ECDSAPrivateKey.generate(curve: .secp256k1)
    let p256 = try! ECDSAPrivateKey.generate(curve: .p256)
    let k256DID = Fixtures.randomPLC()
    let p256DID = Fixtures.randomPLC()

    init(requireLowS: Bool = true, replayStore: (any ReplayStore)? = nil) throws {
        plc = try LoopbackHTTPServer()
        configuration = ServiceAuthConfiguration(serviceDID: Fixtures.serviceDID, plcURL: plc.baseURL,
                                                 allowPrivateAddresses: true, requireLowS: requireLowS)
        resolver = DIDResolver(configuration: configuration, clock: clock.closure)
        self.replayStore = replayStore ?? InMemoryReplayStore(clock: clock.closure)
        verifier = ServiceAuthVerifier(configuration: configuration, resolver: resolver,
                                       replayStore: self.replayStore, clock: clock.closure)
        publish(k256DID, key: k256)
        publish(p256DID, key: p256)
    }

    deinit { plc.stop() }

    func publish(_ did: DID, key: ECDSAPrivateKey) {
        plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: did, key: key))
    }

    func fetches(_ did: DID) -> Int { plc.requestCount("/\(did)") }

    var now: Int { Int(clock.now.timeIntervalSince1970) }

    /// Payload JSON with every claim overridable; `nil` leaves a claim out. Values are raw JSON.
    func payload(iss: String? = nil, aud: String? = "\"\(Fixtures.serviceDID)\"", exp: String? = nil, iat: String? = nil,
                 lxm: String? = "\"\(Fixtures.nsid)\"", jti: String? = nil, did: DID? = nil) -> String {
        let members: [(String, String?)] = [
            ("iss", iss ?? "\"\((did ?? k256DID).rawValue)\""), ("aud", aud), ("exp", exp ?? "\(now + 60)"),
            ("iat", iat ?? "\(now)"), ("lxm", lxm), ("jti", jti ?? "\"\(Base64URL.encode(SecureRandom.bytes(12)))\""),
        ]
        return "{" + members.compactMap { name, value in value.map { "\"\(name)\":\($0)" } }.joined(separator: ",") + "}"
    }

    func token(header: String = "{\"typ\":\"JWT\",\"alg\":\"ES256K\"}", payload: String? = nil,
               key: ECDSAPrivateKey? = nil, lowS: Bool = true) -> String {
        try! ServiceAuthToken.sign(header: header, payload: payload ?? self.payload(), key: key ?? k256, lowS: lowS)
    }

    @discardableResult
    func verify(_ authorization: String?, nsid: String = Fixtures.nsid) throws -> DID {
        try verifier.verify(authorization: authorization, lexiconMethod: nsid)
    }

    func assertFails(_ authorization: String?, _ name: String, nsid: String = Fixtures.nsid,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try verify(authorization, nsid: nsid), file: file, line: line) { error in
            let auth = error as? AuthError
            XCTAssertEqual(auth?.name, name, "\(auth?.message ?? "\(error)")", file: file, line: line)
            XCTAssertEqual(auth?.status, 401, file: file, line: line)
            XCTAssertEqual(auth?.wwwAuthenticate, "Bearer", file: file, line: line)
        }
    }
}
