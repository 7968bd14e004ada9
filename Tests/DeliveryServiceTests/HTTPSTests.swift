import Basics
import Foundation
import MQTTClient
import Primitives
import XCTest

/// The service terminating TLS itself (TLS_CERT_FILE / TLS_KEY_FILE) with a self-signed certificate
/// made in the test; curl verifies the chain and host name against that certificate only.
final class HTTPSTests: XCTestCase {
    func test_serviceAnswersOverVerifiedTLS() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try certificate(in: directory)

        let service = try ServiceHarness(environment: ["TLS_CERT_FILE": cert, "TLS_KEY_FILE": key])
        defer { service.shutdown() }
        XCTAssertTrue(service.app.servesTLS)
        let url = "https://localhost:\(service.app.port)/xrpc/_health"
        let verified = try run("/usr/bin/curl", ["-sS", "--cacert", cert, "--http1.1", url])
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertTrue(verified.output.contains("\"version\""), verified.output)

        // Without the test certificate as trust anchor, the system trust store refuses it.
        let unverified = try run("/usr/bin/curl", ["-sS", url])
        XCTAssertNotEqual(unverified.status, 0)

        // Plain HTTP on the TLS port gets no answer.
        let plain = try run("/usr/bin/curl", ["-sS", "--max-time", "5", "http://localhost:\(service.app.port)/xrpc/_health"])
        XCTAssertNotEqual(plain.status, 0)
    }

    /// The MQTT listener terminates TLS with the same certificate (MQTT_PORT with TLS_CERT_FILE /
    /// TLS_KEY_FILE): our client and mosquitto_sub verify it; a plaintext client gets nothing.
    func test_mqttListenerServesTLSWithTheSameCertificate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try certificate(in: directory)
        let service = try ServiceHarness(environment: ["TLS_CERT_FILE": cert, "TLS_KEY_FILE": key, "MQTT_PORT": "0"])
        defer { service.shutdown() }
        let port = try XCTUnwrap(service.app.mqttPort)
        let alice = RelayTestUser(service)
        let pem = Array(try Data(contentsOf: URL(fileURLWithPath: cert)))
        let client = try MQTTClient(host: "localhost", port: port, tls: true, trustAnchorPEM: pem, options: alice.options())
        XCTAssertEqual(client.connack.reasonCode, .success)
        XCTAssertEqual(try client.subscribe("relay/u/\(alice.did)"), .grantedQoS1)
        XCTAssertEqual(try client.receive(timeout: 5)?.payload, CBORArray.encode(textStrings: [alice.clientID]))

        let other = alice.options(clientID: Hex.encode(SecureRandom.bytes(16)))
        let sub = try run("/usr/bin/mosquitto_sub", [
            "-V", "5", "-h", "localhost", "-p", String(port), "--cafile", cert, "-i", other.clientIdentifier, "-u", alice.did,
            "-P", String(decoding: other.password ?? [], as: UTF8.self), "-t", "relay/u/\(alice.did)", "-C", "1", "-W", "10", "-F", "%x",
        ])
        XCTAssertEqual(sub.status, 0, sub.output)
        // Its own client_id is bound by its CONNECT: the list has both, oldest first.
        XCTAssertEqual(sub.output.trimmingCharacters(in: .whitespacesAndNewlines),
                       Hex.encode(CBORArray.encode(textStrings: [alice.clientID, other.clientIdentifier])),
                       "mosquitto_sub read the retained client list over TLS")
        XCTAssertThrowsError(try MQTTClient(host: "127.0.0.1", port: port, options: alice.options(), timeout: 3), "plaintext on the TLS port")
    }

    /// A self-signed P-256 certificate for localhost and its key, made with the openssl CLI in `directory`.
    private func certificate(in directory: URL) throws -> (certificate: String, key: String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        XCTAssertEqual(try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                     "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                                                     "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]).status, 0)
        return (cert, key)
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
