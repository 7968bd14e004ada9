import Foundation
import XCTest

/// The service terminating TLS itself (TLS_CERT_FILE / TLS_KEY_FILE) with a self-signed certificate
/// made in the test; curl verifies the chain and host name against that certificate only.
final class HTTPSTests: XCTestCase {
    func test_serviceAnswersOverVerifiedTLS() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        XCTAssertEqual(try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                     "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                                                     "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]).status, 0)

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
