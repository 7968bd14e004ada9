import Foundation
import Store
import XCTest

/// A throwaway PostgreSQL cluster of a test's own (scripts/pg.sh, fsync on), so stopping or
/// crashing it touches no other test.
struct PrivateCluster {
    let directory: String
    let port: String
    let url: String

    static func script(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [ServiceHarness.repositoryRoot + "/scripts/pg.sh"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PG_FSYNC": "on"]) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "pg.sh \(arguments) failed"])
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func start() throws -> PrivateCluster {
        let directory = NSTemporaryDirectory() + "catbird-pgcrash-" + UUID().uuidString.prefix(8).lowercased()
        let url = try script(["start", directory])
        // Its files live where pg.sh puts them (as root, in postgres's home).
        let files = try script(["where", directory])
        let port = try String(contentsOfFile: files + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return PrivateCluster(directory: directory, port: port, url: url)
    }

    func crash() throws { _ = try Self.script(["crash", directory]) }
    func restart() throws { _ = try Self.script(["start", directory, port]) }

    func remove() { _ = try? Self.script(["destroy", directory]) }

    var fsync: String {
        get throws {
            let database = try Database(url: url, poolSize: 1)
            defer { database.close() }
            return try database.query("SHOW fsync")[0].string(0)
        }
    }
}
