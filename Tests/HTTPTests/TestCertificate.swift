import Foundation
import XCTest

/// A self-signed P-256 certificate for 127.0.0.1 and localhost, made with the openssl CLI in a
/// temporary directory that is removed on deinit.
final class TestCertificate {
    let directory: URL
    let certificateFile: String
    let keyFile: String

    init(commonName: String = "catbird-test") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificateFile = directory.appendingPathComponent("cert.pem").path
        keyFile = directory.appendingPathComponent("key.pem").path
        let result = try runTool("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", keyFile, "-out", certificateFile,
        ])
        guard result.status == 0 else { throw CertificateError.opensslFailed(result.output) }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    var pem: [UInt8] {
        (try? Array(Data(contentsOf: URL(fileURLWithPath: certificateFile)))) ?? []
    }

    /// Copies this certificate and key over `other`'s files (a certificate renewal on disk).
    func install(over other: TestCertificate) throws {
        for (from, to) in [(certificateFile, other.certificateFile), (keyFile, other.keyFile)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
    }

    enum CertificateError: Error {
        case opensslFailed(String)
    }
}

/// Runs a command line tool to completion; returns its exit status and standard output.
func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Polls `condition` every 10 ms for up to `seconds`; for effects another thread completes just
/// after the one the test observed.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
