import Foundation
import HTTP
import Primitives
import XCTest

/// The real executable as a child process: a 50 MiB upload and download must not grow its
/// resident memory by more than 100 MB (the body streams to disk; the download is sendfile).
final class BlobMemoryTests: XCTestCase {
    func test_fiftyMiBUploadAndDownload_keepServerMemoryUnder100MBAboveBaseline() throws {
        let harness = try ServiceHarness()
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        let blobDirectory = NSTemporaryDirectory() + "catbird-blobs-child-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        defer { try? FileManager.default.removeItem(atPath: blobDirectory) }
        let server = try DurabilityServerProcess(databaseURL: harness.databaseURL, plcURL: harness.plc.baseURL,
                                                 extra: ["BLOB_DIR": blobDirectory])
        defer {
            server.terminate()
            _ = server.waitForExit()
        }
        let pid = server.process.processIdentifier
        let blobs = BlobFixture(harness)

        // Warm up every code path once with a small blob, then take the baseline.
        let small = try blobs.upload(BlobFixture.randomBytes(100_000), convo: convo, as: alice.identity, baseURL: server.baseURL)
        XCTAssertEqual(small.status, 200, "\(small.json) \(server.log.suffix(5))")
        let smallID = try XCTUnwrap((small.json["blob"] as? [String: Any])?["blobId"] as? String)
        XCTAssertEqual(try blobs.fetch(smallID, as: alice.identity, baseURL: server.baseURL).status, 200)
        let baseline = try ProcessMemory.status(of: pid)

        let bytes = BlobFixture.randomBytes(50 << 20)
        let reply = try blobs.upload(bytes, convo: convo, as: alice.identity, baseURL: server.baseURL)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        let afterUpload = try ProcessMemory.status(of: pid)
        let id = try XCTUnwrap((reply.json["blob"] as? [String: Any])?["blobId"] as? String)
        let fetched = try blobs.fetch(id, as: alice.identity, baseURL: server.baseURL)
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(HashAlgorithm.sha256.hash(fetched.body), HashAlgorithm.sha256.hash(bytes))
        let afterDownload = try ProcessMemory.status(of: pid)

        // VmHWM is the peak over the process's life, so it covers the whole transfer.
        let growth = afterDownload.peak - baseline.rss
        XCTAssertGreaterThan(baseline.rss, 0)
        XCTAssertLessThan(growth, 100_000, "server RSS: baseline \(baseline.rss) kB, peak after upload "
                          + "\(afterUpload.peak) kB, after download \(afterDownload.peak) kB")
    }
}
