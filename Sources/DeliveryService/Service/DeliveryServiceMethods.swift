/// The table of blue.catbird.mls.* methods the service serves (one file per method in Methods/).
enum DeliveryServiceMethods {
    static func all(_ env: MethodEnvironment) -> [XRPCMethod] {
        var methods: [XRPCMethod] = [
            GetConvos.method(env), GetConvo.method(env), GetEpoch.method(env), GetGroupInfo.method(env),
            GetMessages.method(env), GetCommits.method(env), SendMessage.method(env),
            GetKeyPackages.method(env), GetKeyPackageStats.method(env),
            GetWelcome.method(env), ConfirmWelcome.method(env),
        ]
        #if BENCH_ROUTES
        methods.append(BenchEcho.method)
        #endif
        return methods
    }
}
