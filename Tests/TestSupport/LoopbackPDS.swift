import Foundation
import Synchronization

/// A PDS stand-in on loopback for the chat contract's relationship checks: it serves each account's
/// public records as a PDS does, unauthenticated (`com.atproto.repo.listRecords` in pages, with a
/// cursor, and `com.atproto.repo.getRecord`), from a table the test fills: blocks
/// (`app.bsky.graph.block`), follows (`app.bsky.graph.follow`) and the `blue.catbird.chat.policy`
/// record. `hanging` makes it a PDS that never answers. It counts reads per account and collection.
public final class LoopbackPDS: Sendable {
    public static let blockCollection = "app.bsky.graph.block"
    public static let followCollection = "app.bsky.graph.follow"
    public static let policyCollection = "blue.catbird.chat.policy"

    private struct Repo {
        /// By collection: (rkey, value JSON), in the order listRecords returns them.
        var records: [String: [(rkey: String, value: String)]] = [:]
    }

    public let server: LoopbackHTTPServer
    private let repos = Mutex<[String: Repo]>([:])
    private let reads = Mutex<[String: Int]>([:])
    private let counter = Atomic<Int>(0)

    public var baseURL: String { server.baseURL }

    /// - Parameter hanging: read every request and never answer (until the client gives up).
    public init(hanging: Bool = false) throws {
        server = try LoopbackHTTPServer()
        if hanging {
            server.setFallback(.hang)
        } else {
            server.setFallback(.respond { [weak self] target in
                self?.answer(target) ?? LoopbackHTTPServer.jsonResponse(#"{"error":"InternalServerError"}"#, status: 500)
            })
        }
    }

    public func stop() { server.stop() }

    // MARK: The records

    /// `did` blocks `subject`.
    public func block(_ did: String, _ subject: String) {
        add(did, Self.blockCollection, #"{"$type":"app.bsky.graph.block","subject":"\#(subject)","createdAt":"2026-01-01T00:00:00.000Z"}"#)
    }

    /// `did` follows `subject`.
    public func follow(_ did: String, _ subject: String) {
        add(did, Self.followCollection, #"{"$type":"app.bsky.graph.follow","subject":"\#(subject)","createdAt":"2026-01-01T00:00:00.000Z"}"#)
    }

    /// `did`'s chat policy record: the JSON object's members (after `$type`), e.g. `"whoCanMessageMe":"none"`.
    public func setPolicy(_ did: String, _ members: String) {
        repos.withLock { repos in
            repos[did, default: Repo()].records[Self.policyCollection] =
                [("self", #"{"$type":"blue.catbird.chat.policy",\#(members),"createdAt":"2026-01-01T00:00:00.000Z"}"#)]
        }
    }

    /// Removes every record of `did` in `collection`.
    public func clear(_ did: String, _ collection: String) {
        repos.withLock { _ = $0[did]?.records.removeValue(forKey: collection) }
    }

    /// `com.atproto.repo.*` requests for `did`'s `collection` so far.
    public func readCount(_ did: String, _ collection: String) -> Int {
        reads.withLock { $0["\(did) \(collection)"] ?? 0 }
    }

    public var totalReads: Int { reads.withLock { $0.values.reduce(0, +) } }

    private func add(_ did: String, _ collection: String, _ value: String) {
        let rkey = "3l" + String(counter.add(1, ordering: .relaxed).newValue, radix: 36)
        repos.withLock { $0[did, default: Repo()].records[collection, default: []].append((rkey, value)) }
    }

    // MARK: The XRPC methods

    private func answer(_ target: String) -> [UInt8] {
        guard let components = URLComponents(string: "http://pds" + target) else { return error(400, "InvalidRequest") }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        guard let repo = query["repo"], let collection = query["collection"] else { return error(400, "InvalidRequest") }
        reads.withLock { $0["\(repo) \(collection)", default: 0] += 1 }
        let records = repos.withLock { $0[repo]?.records[collection] } ?? []
        switch components.path {
        case "/xrpc/com.atproto.repo.listRecords":
            let limit = min(Int(query["limit"] ?? "50") ?? 50, 100)
            let start = Int(query["cursor"] ?? "0") ?? 0
            let page = records.dropFirst(start).prefix(limit)
            let items = page.map { #"{"uri":"at://\#(repo)/\#(collection)/\#($0.rkey)","cid":"bafyreib2rxk3rh6kzwq","value":\#($0.value)}"# }
            let next = start + page.count
            let cursor = next < records.count ? #","cursor":"\#(next)""# : ""
            return LoopbackHTTPServer.jsonResponse(#"{"records":[\#(items.joined(separator: ","))]\#(cursor)}"#)
        case "/xrpc/com.atproto.repo.getRecord":
            guard let rkey = query["rkey"], let record = records.first(where: { $0.rkey == rkey }) else {
                return error(400, "RecordNotFound")
            }
            return LoopbackHTTPServer.jsonResponse(
                #"{"uri":"at://\#(repo)/\#(collection)/\#(rkey)","cid":"bafyreib2rxk3rh6kzwq","value":\#(record.value)}"#)
        default:
            return error(404, "MethodNotImplemented")
        }
    }

    private func error(_ status: Int, _ name: String) -> [UInt8] {
        LoopbackHTTPServer.jsonResponse(#"{"error":"\#(name)","message":"\#(name)"}"#, status: status)
    }
}
