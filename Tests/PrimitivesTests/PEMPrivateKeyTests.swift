import Foundation
import Primitives
import XCTest

/// Private keys from PEM files (an APNs `.p8` key, a VAPID key, a service account's RSA key), as
/// the openssl CLI writes them.
final class PEMPrivateKeyTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs openssl with `arguments` and returns the file it wrote to `name`.
    func openssl(_ arguments: [String], out name: String) throws -> [UInt8] {
        let path = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments + ["-out", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl \(arguments)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testP256Keys_InPKCS8AndSEC1_Sign() throws {
        let pkcs8 = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], out: "k8.pem")
        XCTAssertTrue(String(decoding: pkcs8, as: UTF8.self).contains("BEGIN PRIVATE KEY"))
        let key = try PEMPrivateKey.ecdsa(pem: pkcs8, curve: .p256)
        let signature = try key.signature(for: [1, 2, 3], hash: .sha256)
        XCTAssertTrue(key.publicKey.isValidSignature(raw: signature.raw, for: [1, 2, 3], hash: .sha256))
        let sec1 = try openssl(["ec", "-in", directory.appendingPathComponent("k8.pem").path], out: "k1.pem")
        XCTAssertTrue(String(decoding: sec1, as: UTF8.self).contains("BEGIN EC PRIVATE KEY"))
        XCTAssertEqual(try PEMPrivateKey.ecdsa(pem: sec1, curve: .p256).scalar, key.scalar)
    }

    func testOtherKeys_AreRefused() throws {
        let p384 = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], out: "p384.pem")
        XCTAssertThrowsError(try PEMPrivateKey.ecdsa(pem: p384, curve: .p256))
        let rsa = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], out: "rsa.pem")
        XCTAssertThrowsError(try PEMPrivateKey.ecdsa(pem: rsa, curve: .p256))
        let encrypted = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret"],
                                    out: "encrypted.pem")
        XCTAssertThrowsError(try PEMPrivateKey.ecdsa(pem: encrypted, curve: .p256), "an encrypted key (no prompt)")
        XCTAssertThrowsError(try PEMPrivateKey.ecdsa(pem: Array("-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n".utf8),
                                                     curve: .p256))
        XCTAssertThrowsError(try PEMPrivateKey.ecdsa(pem: [], curve: .p256))
        let small = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], out: "small.pem")
        XCTAssertThrowsError(try RSAPrivateKey(pem: small), "RSA under 2048 bits")
        XCTAssertThrowsError(try RSAPrivateKey(pem: p384))
    }

    func testRS256_SignsAndVerifies() throws {
        let pem = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], out: "rsa.pem")
        let key = try RSAPrivateKey(pem: pem)
        XCTAssertEqual(key.size, 256)
        let message = Array("header.claims".utf8)
        let signature = try key.signatureSHA256(for: message)
        XCTAssertEqual(signature.count, 256)
        XCTAssertEqual(try key.signatureSHA256(for: message), signature, "PKCS#1 v1.5 is deterministic")
        XCTAssertTrue(key.isValidSignatureSHA256(signature, for: message))
        XCTAssertFalse(key.isValidSignatureSHA256(signature, for: message + [0]))
        // Checked by the openssl CLI as well.
        let signatureFile = directory.appendingPathComponent("sig.bin")
        let messageFile = directory.appendingPathComponent("msg.bin")
        try Data(signature).write(to: signatureFile)
        try Data(message).write(to: messageFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-prverify", directory.appendingPathComponent("rsa.pem").path, "-signature",
                             signatureFile.path, messageFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl dgst -prverify")
    }
}
