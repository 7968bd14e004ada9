import Foundation
import Synchronization
import TestSupport
import XCTest

/// A push service stand-in (Tests/PushStandIns) as a child process: a real protocol peer on
/// 127.0.0.1 with its own TLS certificate. Its JSON lines (events) are collected as they come;
/// commands go to its stdin, each answered by one `ok` line.
final class PushStandIn: @unchecked Sendable {
    enum Kind: String {
        case apns = "apns_standin.py"
        case webPush = "webpush_standin.py"
        case fcm = "fcm_standin.py"
    }

    typealias Event = [String: Any]

    let process = Process()
    let directory: URL
    private(set) var port = 0
    /// The stand-in's certificate (PEM): what the service is told to trust for it.
    private(set) var caFile = ""
    private let input = Pipe()
    private let lines = Mutex<[String]>([])
    private let arrived = NSCondition()

    /// The Python of the stand-ins: PUSH_STANDIN_PYTHON (scripts/test.sh sets it to the virtual
    /// environment of scripts/interop-venv.sh), else that environment if it exists.
    static var python: String {
        get throws {
            if let python = ProcessInfo.processInfo.environment["PUSH_STANDIN_PYTHON"], !python.isEmpty { return python }
            let venv = TestDatabase.repositoryRoot + "/.data/venv/bin/python"
            guard FileManager.default.isExecutableFile(atPath: venv) else {
                throw XCTestError(.failureWhileWaiting, userInfo: [
                    "reason": "no Python with h2, http_ece and py_vapid: run scripts/interop-venv.sh (make test does) or set PUSH_STANDIN_PYTHON",
                ])
            }
            return venv
        }
    }

    /// Whether `stop` removes `directory` (not when the test lent it: a stand-in started again in
    /// its place reuses its certificate and key).
    private let ownsDirectory: Bool

    /// - Parameters: `directory` to reuse another stand-in's certificate (and files), `port` to
    ///   listen on a given port (APNs only) rather than an ephemeral one.
    init(_ kind: Kind, directory: URL? = nil, port: Int? = nil) throws {
        ownsDirectory = directory == nil
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("push-standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: try Self.python)
        process.arguments = [TestDatabase.repositoryRoot + "/Tests/PushStandIns/" + kind.rawValue, "--dir", self.directory.path]
            + (port.map { ["--port", String($0)] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.standardError
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread { [self] in drain(reader) }
        guard let ready = wait(for: "ready", count: 1, timeout: 30).first else {
            stop()
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "\(kind.rawValue) did not start"])
        }
        self.port = ready["port"] as? Int ?? 0
        caFile = ready["ca"] as? String ?? ""
    }

    deinit { stop() }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    private func drain(_ reader: FileHandle) {
        var pending = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                lines.withLock { $0.append(line) }
                arrived.lock()
                arrived.broadcast()
                arrived.unlock()
            }
        }
    }

    /// Every event so far named `name` (all events when nil).
    func events(_ name: String? = nil) -> [Event] {
        lines.withLock { $0 }.compactMap { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? Event else { return nil }
            return name == nil || event["event"] as? String == name ? event : nil
        }
    }

    /// Waits up to `timeout` seconds until `count` events named `name` satisfy `predicate`; returns
    /// those there are by then.
    @discardableResult
    func wait(for name: String, count: Int, timeout: Double, where predicate: (Event) -> Bool = { _ in true }) -> [Event] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let matching = events(name).filter(predicate)
            if matching.count >= count || Date() >= deadline { return matching }
            arrived.lock()
            _ = arrived.wait(until: min(deadline, Date().addingTimeInterval(0.2)))
            arrived.unlock()
        }
    }

    /// Sends a command and returns its `ok` line; throws on an `error` line or after 30 s.
    @discardableResult
    func command(_ command: [String: Any]) throws -> Event {
        let before = events().filter { ["ok", "error"].contains($0["event"] as? String) }.count
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: command) + Data([0x0a]))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let replies = events().filter { ["ok", "error"].contains($0["event"] as? String) }
            if replies.count > before {
                let reply = replies[before]
                guard reply["event"] as? String == "ok" else {
                    throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "stand-in refused \(command): \(reply)"])
                }
                return reply
            }
            arrived.lock()
            _ = arrived.wait(until: Date().addingTimeInterval(0.2))
            arrived.unlock()
        }
        throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "stand-in did not answer \(command)"])
    }

    /// The `push` events for `id` (a token or subscription id).
    func pushes(to id: String) -> [Event] { events("push").filter { $0["id"] as? String == id } }
}

/// Files for a push test: PEM bundles and keys written to a temporary folder, removed on deinit.
final class PushTestFiles {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The concatenation of `files` as one new file.
    func bundle(_ files: [String], name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        var data = Data()
        for file in files { data.append(try Data(contentsOf: URL(fileURLWithPath: file))) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A fresh P-256 private key in PEM (PKCS#8), made by the openssl CLI.
    func p256Key(name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "openssl genpkey failed"]) }
        return path
    }
}
