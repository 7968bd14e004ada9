import ATProto
import Foundation
@testable import MLSClient
import Primitives
import Synchronization
import TestSupport
import XCTest

/// The bearer token: minted per attempt by the service-auth provider, verifiable with the user's
/// key, bound to the method; missing or failing providers are `noAuthentication`.
final class TokenProviderTests: XCTestCase {
    var server: ScriptedServer!

    override func setUpWithError() throws { server = try ScriptedServer() }
    override func tearDown() { server.stop() }

    func payload(ofToken token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        let bytes = try XCTUnwrap(Base64URL.decode(parts[1]))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func testServiceAuthProviderMintsAVerifiableTokenForTheMethod() async throws {
        let user = TestIdentity()
        let provider = MLSTokenProviders.serviceAuth(issuer: user.did, audience: "did:web:mls.test", key: user.key)
        let token = try await provider("blue.catbird.mls.getConvos")
        let payload = try payload(ofToken: token)
        XCTAssertEqual(payload["iss"] as? String, user.did.rawValue)
        XCTAssertEqual(payload["aud"] as? String, "did:web:mls.test")
        XCTAssertEqual(payload["lxm"] as? String, "blue.catbird.mls.getConvos")
        let parts = token.split(separator: ".")
        let signature = try XCTUnwrap(Base64URL.decode(parts[2]))
        XCTAssertTrue(user.key.publicKey.isValidSignature(raw: signature, for: Array("\(parts[0]).\(parts[1])".utf8), hash: .sha256))
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(Base64URL.decode(parts[0])))) as? [String: String])
        XCTAssertEqual(header["alg"], "ES256K")
    }

    func testEachAttemptCarriesAFreshTokenBoundToTheMethod() async throws {
        let user = TestIdentity()
        let nsid = "blue.catbird.mls.getEpoch"
        server.script(nsid, .init(status: 503, body: "{}"), .init(status: 200, body: #"{"convoId":"ab","currentEpoch":1}"#))
        let policy = RetryPolicy(maxAttempts: 3, sleep: { _ in })
        let client = MLSAPIClient(configuration: .init(baseURL: server.baseURL, serviceDID: "did:web:mls.test", retry: policy),
                                  tokenProvider: MLSTokenProviders.serviceAuth(issuer: user.did, audience: "did:web:mls.test", key: user.key))
        _ = try await client.getEpoch(convoId: "ab")
        let tokens = server.requests(nsid).compactMap { $0.header("Authorization") }
        XCTAssertEqual(tokens.count, 2)
        XCTAssertTrue(tokens.allSatisfy { $0.hasPrefix("Bearer ") })
        XCTAssertNotEqual(tokens[0], tokens[1])
        let jtis = try tokens.map { try payload(ofToken: String($0.dropFirst(7)))["jti"] as? String }
        XCTAssertNotEqual(jtis[0], jtis[1])
        XCTAssertEqual(try payload(ofToken: String(tokens[1].dropFirst(7)))["lxm"] as? String, nsid)
    }

    func testNoProviderIsNoAuthenticationWithoutARequest() async {
        let client = MLSAPIClient(configuration: .init(baseURL: server.baseURL), tokenProvider: nil)
        do {
            _ = try await client.getConvos()
            XCTFail("expected noAuthentication")
        } catch {
            guard case .noAuthentication = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(server.requests("blue.catbird.mls.getConvos").count, 0)
    }

    func testFailingProviderIsNoAuthentication() async {
        struct Refused: Error {}
        let client = MLSAPIClient(configuration: .init(baseURL: server.baseURL), tokenProvider: { _ in throw Refused() })
        do {
            _ = try await client.getConvos()
            XCTFail("expected noAuthentication")
        } catch {
            guard case .noAuthentication(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains("Refused"))
        }
    }

    func testLoopbackDetectionEnablesPrivateAddressesOnlyForLocalURLs() {
        XCTAssertTrue(MLSAPIClient.Configuration(baseURL: "http://127.0.0.1:8080").allowPrivateAddresses)
        XCTAssertTrue(MLSAPIClient.Configuration(baseURL: "http://localhost:8080").allowPrivateAddresses)
        XCTAssertFalse(MLSAPIClient.Configuration(baseURL: "https://mls.example.com").allowPrivateAddresses)
        XCTAssertFalse(MLSAPIClient.Configuration(baseURL: "https://10.0.0.1").allowPrivateAddresses)
    }
}
