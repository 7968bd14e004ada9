import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real `catbird-mls-server` executable as a child process on 127.0.0.1 (ephemeral port), built
/// next to the test bundle by `swift build --build-tests`. Its stderr is drained continuously (a
/// full pipe would stall the server) and kept for the port and for failure messages.
final class DurabilityServerProcess: @unchecked Sendable {
    let process = Process()
    private let lines = Mutex<[String]>([])
    private let listening = DispatchSemaphore(value: 0)
    private(set) var port = 0

    static var executable: String { ServiceHarness.repositoryRoot + "/.build/debug/catbird-mls-server" }
    /// One folder per test process, kept across the server restarts a test makes: two runs (two
    /// checkouts, two users) never share it.
    static let blobDirectory = NSTemporaryDirectory() + "catbird-blobs-durability-\(getpid())"

    init(databaseURL: String, plcURL: String, extra: [String: String] = [:]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "\(Self.executable) missing: run `swift build --build-tests`"])
        }
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.environment = [
            "HOST": "127.0.0.1", "PORT": "0", "DATABASE_URL": databaseURL, "DATABASE_POOL_SIZE": "8",
            "WORKER_THREADS": "16", "PLC_URL": plcURL, "DID_RESOLVER_ALLOW_PRIVATE": "1",
            "SERVICE_DID": ServiceHarness.serviceDID, "SERVICE_ENDPOINT": "https://mls.test",
            "MIGRATIONS_DIR": ServiceHarness.repositoryRoot + "/migrations", "LOG_LEVEL": "info",
            "RATE_LIMIT_ENABLED": "0", "SHUTDOWN_GRACE_PERIOD": "10",
            "BLOB_DIR": Self.blobDirectory,
        ].merging(extra) { _, new in new }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        let thread = Thread { [self] in drain(reader) }
        thread.start()
        guard listening.wait(timeout: .now() + 60) == .success, port > 0 else {
            kill9()
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "server did not start: \(log.suffix(20))"])
        }
    }

    private func drain(_ reader: FileHandle) {
        var pending = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { return }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                lines.withLock { $0.append(line) }
                if port == 0, line.contains("\"msg\":\"listening\""),
                   let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                   let value = object["port"].flatMap(Int.init) {
                    port = value
                    listening.signal()
                }
            }
        }
    }

    var log: [String] { lines.withLock { $0 } }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    func terminate() { kill(process.processIdentifier, SIGTERM) }
    func kill9() { kill(process.processIdentifier, SIGKILL) }

    /// Waits up to `timeout` seconds for the process to end; nil if it did not (it is then killed).
    func waitForExit(timeout: Double = 60) -> (reason: Process.TerminationReason, status: Int32)? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill9()
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }
}
