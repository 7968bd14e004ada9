import Basics
import Foundation
import HTTP

/// Reads an account's public records from its PDS, unauthenticated (atproto repository XRPC:
/// `com.atproto.repo.listRecords`, `com.atproto.repo.getRecord`), through `HTTPClient`: one deadline
/// per request from name lookup to body, a body size cap, no redirects, and the SSRF guard
/// (private addresses only when allowed, and then plain http too; https otherwise). Every failure
/// (network, status, a body that is not what the method returns) is `unavailable`: the records
/// could not be read now.
public struct RepoRecordReader: Sendable {
    public struct Unavailable: Error, Sendable, Equatable, CustomStringConvertible {
        /// For the operator's log, never a caller.
        public let detail: String
        public var description: String { detail }
    }

    /// The `subject` DIDs of an account's records in one collection.
    public struct Subjects: Sendable, Equatable {
        public var dids: Set<String>
        /// False when the listing had more than the reader's cap.
        public var complete: Bool

        public init(dids: Set<String>, complete: Bool) {
            self.dids = dids
            self.complete = complete
        }
    }

    /// One field of a record's `value`, as far as a reader here needs it.
    public enum Field: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case other
    }

    /// Longest wait for one request.
    public let requestTimeout: Double
    public let maxBodySize: Int
    public let allowPrivateAddresses: Bool
    /// listRecords' largest page (its lexicon's maximum).
    public static let pageSize = 100

    public init(requestTimeout: Double, maxBodySize: Int, allowPrivateAddresses: Bool) {
        self.requestTimeout = requestTimeout
        self.maxBodySize = maxBodySize
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    public init(resolver configuration: ServiceAuthConfiguration) {
        self.init(requestTimeout: configuration.resolutionTimeout, maxBodySize: configuration.maxDocumentSize,
                  allowPrivateAddresses: configuration.allowPrivateAddresses)
    }

    /// The `value.subject` DIDs of `did`'s records in `collection` (graph records: follows, blocks),
    /// page by page until the listing ends, `maxRecords` were read (`complete` false), or `deadline`
    /// passes (unavailable). A PDS that says the repository does not exist has no records.
    public func subjects(of did: DID, pds: String, collection: String, maxRecords: Int,
                         deadline: Date) throws(Unavailable) -> Subjects {
        var dids: Set<String> = []
        var read = 0
        var cursor: String?
        var cursors: Set<String> = []
        while true {
            var query = [("repo", did.rawValue), ("collection", collection), ("limit", String(Self.pageSize))]
            if let cursor { query.append(("cursor", cursor)) }
            let response = try get(pds, "com.atproto.repo.listRecords", query, deadline: deadline)
            if response.status == 400 || response.status == 404, Self.errorName(response.body) == "RepoNotFound" {
                return Subjects(dids: [], complete: true)
            }
            guard response.status == 200, let object = JSONValue.parseObject(response.body),
                  case .array(let records)? = object["records"] else {
                throw Unavailable(detail: "listRecords answered \(response.status) without records")
            }
            let prefix = "at://\(did.rawValue)/\(collection)/"
            for case .object(let record) in records {
                read += 1
                guard record["uri"]?.stringValue?.hasPrefix(prefix) == true, case .object(let value)? = record["value"],
                      let subject = value["subject"]?.stringValue, (try? DID(subject)) != nil else { continue }
                dids.insert(subject)
            }
            let next = object["cursor"]?.stringValue
            guard let next, !records.isEmpty else { return Subjects(dids: dids, complete: true) }
            // A cursor seen before would page forever; the cap, past it, leaves the rest unread.
            guard read < maxRecords, cursors.insert(next).inserted, next.utf8.count <= 1024 else {
                return Subjects(dids: dids, complete: false)
            }
            cursor = next
        }
    }

    /// The `value` of one record (getRecord), its top-level fields; nil when the PDS says there is
    /// no such record.
    public func record(of did: DID, pds: String, collection: String, rkey: String,
                       deadline: Date) throws(Unavailable) -> [String: Field]? {
        let response = try get(pds, "com.atproto.repo.getRecord", [("repo", did.rawValue), ("collection", collection), ("rkey", rkey)],
                               deadline: deadline)
        if response.status == 400 || response.status == 404,
           ["RecordNotFound", "RepoNotFound"].contains(Self.errorName(response.body)) {
            return nil
        }
        guard response.status == 200, let object = JSONValue.parseObject(response.body),
              object["uri"]?.stringValue == "at://\(did.rawValue)/\(collection)/\(rkey)", case .object(let value)? = object["value"] else {
            throw Unavailable(detail: "getRecord answered \(response.status) without the record")
        }
        return value.mapValues { field in
            switch field {
            case .string(let text): .string(text)
            case .bool(let flag): .bool(flag)
            default: .other
            }
        }
    }

    private func get(_ pds: String, _ method: String, _ query: [(String, String)], deadline: Date) throws(Unavailable) -> HTTPClientResponse {
        guard pds.hasPrefix("https://") || (allowPrivateAddresses && pds.hasPrefix("http://")) else {
            throw Unavailable(detail: "the PDS endpoint is not https")
        }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw Unavailable(detail: "out of time") }
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let encoded = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let client = HTTPClient(timeout: min(requestTimeout, remaining), maxBodySize: maxBodySize,
                                allowPrivateAddresses: allowPrivateAddresses)
        do {
            return try client.send(method: "GET", "\(pds)/xrpc/\(method)?\(encoded)", headers: [("Accept", "application/json")])
        } catch {
            throw Unavailable(detail: "\(method): \(error)")
        }
    }

    /// The `error` of an XRPC error body.
    private static func errorName(_ body: [UInt8]) -> String? {
        JSONValue.parseObject(body)?["error"]?.stringValue
    }
}
