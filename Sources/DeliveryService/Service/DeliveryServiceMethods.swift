import Store

/// The table of blue.catbird.mls.* methods the service serves.
enum DeliveryServiceMethods {
    static func all(database: Database, log: Log) -> [XRPCMethod] {
        var methods: [XRPCMethod] = []
        #if BENCH_ROUTES
        methods.append(BenchEcho.method)
        #endif
        return methods
    }
}
