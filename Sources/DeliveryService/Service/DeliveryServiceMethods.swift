/// The table of blue.catbird.mls.* methods the service serves (one file per method in Methods/).
enum DeliveryServiceMethods {
    static func all(_ env: MethodEnvironment) -> [XRPCMethod] {
        var methods: [XRPCMethod] = [
            GetConvos.method(env), GetConvo.method(env), GetEpoch.method(env), GetGroupInfo.method(env),
            GetMessages.method(env), GetCommits.method(env), SendMessage.method(env),
            GetKeyPackages.method(env), GetKeyPackageStats.method(env),
            GetWelcome.method(env), ConfirmWelcome.method(env),
            CreateConvo.method(env), AddMembers.method(env), RemoveMember.method(env), CommitGroupChange.method(env),
            LeaveConvo.method(env), ProcessExternalCommit.method(env), UpdateGroupInfo.method(env),
            PublishKeyPackage.method(env), PublishKeyPackages.method(env),
            RegisterStorage.method(env), GetStorage.method(env),
            UploadBlob.method(env), GetBlob.method(env),
        ]
        #if BENCH_ROUTES
        methods.append(BenchEcho.method)
        #endif
        return methods
    }
}
