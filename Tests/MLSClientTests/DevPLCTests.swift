import ATProto
import Basics
@testable import catbird_mls
import Foundation
import HTTP
import MLSClient
import XCTest

/// The dev PLC directory: registration from loopback only, documents served back, and a real
/// DID resolver finding the key of an identity `init` made.
final class DevPLCTests: XCTestCase {
    var folder: URL!
    var directory: DevPLCDirectory!
    let did = "did:plc:abcdefghijklmnopqrstuvwx"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("devplc-" + UUID().uuidString)
        directory = DevPLCDirectory(folder: folder)
        try directory.prepare()
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    func request(_ method: HTTPMethod, _ path: String, body: String = "", from address: String = "127.0.0.1") -> HTTPResponse {
        directory.respond(to: HTTPRequest(head: HTTPRequestHead(method: method, target: path), body: Array(body.utf8),
                                          remoteAddress: address))
    }

    func testRegisterThenServe() {
        XCTAssertEqual(request(.get, "/" + did).status, 404)
        let document = #"{"id":"\#(did)","verificationMethod":[]}"#
        XCTAssertEqual(request(.post, "/" + did, body: document).status, 200)
        let served = request(.get, "/" + did)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(String(decoding: served.body, as: UTF8.self), document)
    }

    func testRegistrationRefusals() {
        let document = #"{"id":"\#(did)"}"#
        XCTAssertEqual(request(.post, "/" + did, body: document, from: "10.0.0.7").status, 403)
        XCTAssertEqual(request(.post, "/" + did, body: #"{"id":"did:plc:zzzzzzzzzzzzzzzzzzzzzzzz"}"#).status, 400)
        XCTAssertEqual(request(.post, "/" + did, body: "{not json").status, 400)
        XCTAssertEqual(request(.post, "/" + did, body: "").status, 400)
        XCTAssertEqual(request(.post, "/did:plc:../../../../etc/passwd", body: document).status, 404)
        XCTAssertEqual(request(.post, "/did:web:example.com", body: document).status, 404)
        XCTAssertEqual(request(.delete, "/" + did).status, 405)
        XCTAssertEqual(request(.get, "/" + did).status, 404, "nothing refused was stored")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testInitRegistersADocumentTheResolverAccepts() async throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2),
                                responder: directory.responder)
        try server.start()
        defer { server.shutdown() }
        let plc = "http://127.0.0.1:\(server.port)"
        let home = folder.appendingPathComponent("alice")
        let command = try XCTUnwrap(try CatbirdMLS.parseAsRoot(["init", "--dir", home.path, "--plc", plc, "--quiet"]) as? Init)
        try await command.run()

        let identity = try MLSClientStore(directory: home).loadIdentity()
        let resolver = DIDResolver(configuration: ServiceAuthConfiguration(serviceDID: "did:web:mls.test", plcURL: plc,
                                                                           allowPrivateAddresses: true))
        let key = try resolver.signingKey(for: try DID(identity.did), forceRefresh: false)
        XCTAssertEqual(key.publicKey.uncompressed, try XCTUnwrap(try identity.atprotoKey()).publicKey.uncompressed)
        XCTAssertEqual(key.algorithm, .es256k)

        // A second init without --force keeps the identity.
        let again = try XCTUnwrap(try CatbirdMLS.parseAsRoot(["init", "--dir", home.path, "--quiet"]) as? Init)
        do {
            try await again.run()
            XCTFail("expected a refusal")
        } catch {}
        XCTAssertEqual(try MLSClientStore(directory: home).loadIdentity(), identity)
    }
}
