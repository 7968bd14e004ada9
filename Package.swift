// swift-tools-version:6.0
import PackageDescription

// One module per layer; imports point one way (see docs/ARCHITECTURE.md):
// C libraries ← Primitives ← MLS ← DeliveryService → Store, HTTP, ATProto; Basics under all of them.
let package = Package(
    name: "catbird-mls",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "MLS", targets: ["MLS"]),
        .executable(name: "catbird-mls-server", targets: ["catbird-mls-server"]),
        .executable(name: "mls-vectors", targets: ["mls-vectors"]),
        .executable(name: "mls-mutants", targets: ["mls-mutants"]),
        .library(name: "MLSClient", targets: ["MLSClient"]),
        .executable(name: "catbird-mls", targets: ["catbird-mls"]),
    ],
    dependencies: [
        // Only for the catbird-mls CLI's command line; nothing on the server side uses it.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries: module maps only, plus a shim header for macros.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),

        // Value types every layer may share, with no dependencies: DID, hex, base64, `$bytes`, IP addresses.
        .target(name: "Basics"),
        // Strict RFC 8259 JSON: the Codable coder of request and response bodies, and the direct
        // object reader and writer that the hottest lexicon types use instead of Codable's containers.
        .target(name: "JSON", dependencies: ["Basics"]),
        // The XRPC input and output types of lexicon/*.json, shared by the service and the client.
        .target(name: "Lexicon", dependencies: ["Basics", "JSON"]),
        // Thin safe wrappers over libsodium and OpenSSL: the only crypto code that touches C.
        .target(name: "Primitives", dependencies: ["CSodium", "COpenSSL"]),
        // RFC 9420 core: knows nothing of HTTP or SQL.
        .target(name: "MLS", dependencies: ["Primitives"]),
        // Test-vector checks shared by the mls-vectors runner and the test suite.
        .target(name: "MLSVectors", dependencies: ["Basics", "MLS"]),
        .executableTarget(name: "mls-vectors", dependencies: ["MLSVectors"]),
        // Known-answer files for the natively written ML-KEM, X-Wing and SHA-3 (scripts/fetch-test-data.sh).
        .target(name: "CryptoVectors", dependencies: ["MLSVectors", "MLS", "Primitives"]),
        .executableTarget(name: "crypto-vectors", dependencies: ["CryptoVectors"]),
        // The differential test of PublicGroup against members (mutated commits), shared by the
        // mls-mutants runner and the test suite.
        .target(name: "MLSMutations", dependencies: ["Basics", "MLS", "Primitives"]),
        .executableTarget(name: "mls-mutants", dependencies: ["MLSMutations", "MLS"]),
        .executableTarget(name: "mls-bench", dependencies: ["MLS", "Primitives"], path: "Benchmarks/MLSBench"),
        // Secret-dependent branches and addresses in ML-KEM/X-Wing, under Valgrind (scripts/ct-check.sh).
        .executableTarget(name: "ct-check", dependencies: ["Primitives"], path: "Benchmarks/CTCheck"),
        // Delivery-service load generator: a client only (no server code); see scripts/bench.sh.
        .executableTarget(name: "ds-bench", dependencies: ["Basics", "MLS", "MLSTestSupport", "ATProto", "HTTP", "Primitives", "MQTT", "MQTTClient", "Push"],
                          path: "Benchmarks/DSBench"),

        // MQTT 5.0 protocol core: packet codec, topics and the per-connection state machine. No sockets,
        // no clocks, no dependencies; the listener and the Relay topics build on it.
        .target(name: "MQTT"),
        // Sockets, epoll, HTTP/1.1 server and client, TLS. Knows nothing of XRPC or MLS.
        .target(name: "HTTP", dependencies: ["Basics", "COpenSSL", "CSystem"]),
        // The MQTT listener: MQTT's state machine on HTTP's epoll loops and TLS (a stream listener),
        // with the service behind a broker protocol. Knows nothing of MLS, XRPC or the store.
        .target(name: "MQTTServer", dependencies: ["MQTT", "HTTP"]),
        // A blocking MQTT 5.0 client on the same sockets and TLS (MLSClient's MQTT transport, tests, bench).
        .target(name: "MQTTClient", dependencies: ["MQTT", "HTTP"]),
        // DIDs, resolution, Multikey, service-auth JWTs.
        .target(name: "ATProto", dependencies: ["Basics", "HTTP", "Primitives"]),
        // libpq pool, statements, transactions, migrations.
        .target(name: "Store", dependencies: ["CLibPQ"]),
        // The delivery service's tables and the SQL that keeps them consistent (epoch-guarded commits).
        .target(name: "DeliveryStore", dependencies: ["Basics", "Store", "ChatProtocol"]),
        // The blue.catbird.chat.* contract's protocol (CHAT.md): canonical DAG-CBOR, the embedded
        // lexicons, the schema-driven projection of requests, signed bodies and their transcripts,
        // coordinates. No HTTP, no SQL: the service and the client share it.
        .target(name: "ChatProtocol", dependencies: ["Basics", "JSON", "Primitives"]),
        // An HTTP/2 client (libnghttp2's RFC 9113 state machine) on HTTP's sockets, epoll and TLS
        // with ALPN h2: one multiplexed connection per host, pings, reconnection. For APNs.
        .target(name: "HTTP2", dependencies: ["Basics", "HTTP", "CNGHTTP2"]),
        // Push to devices without a socket: payloads, Web Push encryption (RFC 8291), the provider
        // and VAPID tokens, the FCM grant, and the senders of each platform (docs/push.md).
        .target(name: "Push", dependencies: ["Basics", "JSON", "Primitives", "HTTP", "HTTP2"]),
        // XRPC routes and the blue.catbird.mls.* methods.
        .target(name: "DeliveryService", dependencies: ["Basics", "JSON", "Lexicon", "ChatProtocol", "MLS", "HTTP", "ATProto", "Store", "DeliveryStore", "MQTT", "MQTTServer", "Push"]),
        .executableTarget(name: "catbird-mls-server", dependencies: ["DeliveryService"]),

        // The client side: XRPC client and conversation layer over the MLS core; no server code.
        .target(name: "MLSClient", dependencies: ["Basics", "JSON", "Lexicon", "ChatProtocol", "MLS", "Primitives", "HTTP", "ATProto", "MQTT", "MQTTClient"]),
        .executableTarget(name: "catbird-mls", dependencies: [
            "MLSClient", "ChatProtocol", "Basics", "Lexicon", "MLS", "ATProto", "HTTP", "Primitives",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Loopback servers, clients, clocks and the test database shared by the test targets.
        .target(name: "TestSupport", dependencies: ["Basics", "ATProto", "Primitives", "Store"], path: "Tests/TestSupport"),
        // What a dishonest committer could forge (GroupInfos and trees, re-signed) and the hostile MLS
        // inputs of issue 14, for MLS and service tests and ds-bench's abuse items; no XCTest.
        .target(name: "MLSTestSupport", dependencies: ["MLS", "Primitives"], path: "Tests/MLSTestSupport"),
        .testTarget(name: "BasicsTests", dependencies: ["Basics"]),
        // README.md and docs/: every relative link and anchor resolves.
        .testTarget(name: "DocsTests"),
        // Reads lexicon/*.json and checks the Lexicon types field by field.
        .testTarget(name: "LexiconTests", dependencies: ["Lexicon", "Basics", "JSON"]),
        .testTarget(name: "ChatProtocolTests", dependencies: ["ChatProtocol", "Basics", "JSON", "Primitives"]),
        .testTarget(name: "JSONTests", dependencies: ["Basics", "JSON", "Lexicon"]),
        .testTarget(name: "PrimitivesTests", dependencies: ["Basics", "Primitives"]),
        .testTarget(name: "MLSTests", dependencies: ["Basics", "MLS", "MLSVectors", "MLSMutations", "MLSTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["Basics", "HTTP"]),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2"]),
        .testTarget(name: "PushTests", dependencies: ["Basics", "JSON", "Primitives", "Push"]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT"], exclude: ["Fixtures"]),
        .testTarget(name: "MQTTServerTests", dependencies: ["MQTT", "MQTTServer", "MQTTClient", "HTTP"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "TestSupport"]),
        .testTarget(name: "ATProtoTests", dependencies: ["Basics", "JSON", "ATProto", "HTTP", "Primitives", "Store", "TestSupport"]),
        .testTarget(name: "DeliveryStoreTests", dependencies: ["Basics", "DeliveryStore", "Store", "TestSupport", "ChatProtocol"]),
        // The end-to-end walkthrough runs the real service in-process; the client library itself stays free of it.
        .testTarget(name: "MLSClientTests", dependencies: [
            "MLSClient", "catbird-mls", "ChatProtocol", "Basics", "Lexicon", "MLS", "HTTP", "ATProto", "Primitives", "TestSupport", "DeliveryService", "Store",
        ]),
        .testTarget(name: "DeliveryServiceTests", dependencies: ["Basics", "Lexicon", "ChatProtocol", "MLSClient", "DeliveryService", "MLS", "HTTP", "ATProto", "Store", "Primitives", "TestSupport", "MLSTestSupport", "MQTT", "MQTTClient", "HTTP2"]),
    ]
)
