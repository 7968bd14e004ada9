import Foundation
import MLS

/// The publishKeyPackage load: `count` distinct valid KeyPackages, each with a token of its owner,
/// spread over enough users to stay under the per-user cap of unused KeyPackages.
struct KeyPackageData {
    static let nsid = "blue.catbird.mls.publishKeyPackage"

    let client: XRPCClient
    let plcDirectory: String
    /// Below the server's default cap of 200 unused KeyPackages per user.
    var perUser = 190

    /// Writes `count` lines `<token> <JSON body>`, owners interleaved; returns how many users.
    func write(count: Int, to path: String) throws -> Int {
        let userCount = (count + perUser - 1) / perUser
        let users = try (0..<userCount).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        let audience = client.audience
        let lines = try Parallel.map(count) { index in
            let user = users[index % userCount]
            let body = try WireFormat.compactJSON(WireFormat.publishKeyPackageBody(try user.makeKeyPackage()))
            return "\(try user.token(audience: audience, nsid: Self.nsid)) \(body)\n"
        }
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: path))
        return userCount
    }
}
