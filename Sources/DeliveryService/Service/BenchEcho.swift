#if BENCH_ROUTES
import Basics

/// A bench-only procedure, compiled only with `-DBENCH_ROUTES` (`make bench`): decodes a ~1 KB JSON
/// body and encodes it back, to measure the XRPC decode/encode path without the database.
enum BenchEcho {
    struct Item: Codable, Sendable {
        var id: String
        var epoch: Int
        var tags: [String]
        var payload: ATBytes
    }

    struct Body: Codable, Sendable {
        var convoId: String
        var items: [Item]
    }

    static let method = XRPCMethod.unauthenticated("blue.catbird.mls.bench.echo", .procedure, mayBlock: false) { context in
        .json(try context.input(Body.self))
    }
}
#endif
