#if BENCH_ROUTES
import Basics
import JSON

/// A bench-only procedure, compiled only with `-DBENCH_ROUTES` (`make bench`): decodes a ~1 KB JSON
/// body and encodes it back, to measure the XRPC decode/encode path without the database. Its types
/// read and write themselves directly (`JSONObjectCodable`), as the hot lexicon types do.
enum BenchEcho {
    struct Item: Codable, Sendable, JSONObjectCodable {
        var id: String
        var epoch: Int
        var tags: [String]
        var payload: ATBytes

        init(json object: JSONObjectReader) throws {
            id = try object.decode(String.self, forKey: CodingKeys.id)
            epoch = try object.decode(Int.self, forKey: CodingKeys.epoch)
            tags = try object.decode([String].self, forKey: CodingKeys.tags)
            payload = try object.decode(ATBytes.self, forKey: CodingKeys.payload)
        }

        func encode(json object: inout JSONObjectWriter) {
            object.encode(id, forKey: CodingKeys.id)
            object.encode(epoch, forKey: CodingKeys.epoch)
            object.encode(tags, forKey: CodingKeys.tags)
            object.encode(payload, forKey: CodingKeys.payload)
        }
    }

    struct Body: Codable, Sendable, JSONObjectCodable {
        var convoId: String
        var items: [Item]

        init(json object: JSONObjectReader) throws {
            convoId = try object.decode(String.self, forKey: CodingKeys.convoId)
            items = try object.decode([Item].self, forKey: CodingKeys.items)
        }

        func encode(json object: inout JSONObjectWriter) {
            object.encode(convoId, forKey: CodingKeys.convoId)
            object.encode(items, forKey: CodingKeys.items)
        }
    }

    static let method = XRPCMethod.unauthenticated("blue.catbird.mls.bench.echo", .procedure, mayBlock: false) { context in
        .json(try context.input(Body.self))
    }
}
#endif
