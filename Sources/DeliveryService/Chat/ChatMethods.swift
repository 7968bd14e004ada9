import ChatProtocol

/// The table of `blue.catbird.chat.*` methods (docs/chat.md): one file per method in Methods/.
/// The contract's methods not served yet answer `CutoverRequired`, which the app treats as "this
/// service does not do that yet".
enum ChatMethods {
    static let prefix = "blue.catbird.chat."
    static let subscribeEvents = prefix + "subscribeEvents"

    static func all(_ env: ChatEnvironment) -> [XRPCMethod] {
        var methods: [XRPCMethod] = [
            EnrollDevice.method(env), ReplenishKeyPackages.method(env), RevokeDevice.method(env),
            GetOwnDevices.method(env), GetDevices.method(env),
            CreateConversation.method(env), AcceptConversation.method(env),
            RequestLeafRecovery.method(env), CancelLeafRecovery.method(env), SubmitTransition.method(env),
            GetConversationState.method(env), AcknowledgeWelcome.method(env), RejectWelcome.method(env),
            SendChatMessage.method(env), PublishTyping.method(env), GetEntries.method(env),
            GetConversations.method(env), GetPendingWelcomes.method(env), GetLeafRecoveryInbox.method(env),
            GetChatSubscriptionTicket.method(env), UpdatePushToken.method(env),
            RequestLeave.method(env), CancelLeave.method(env), RequestReset.method(env), ActivateReset.method(env),
            CloseConversation.method(env),
            PrepareBlobUpload.method(env), UploadChatBlob.method(env), GetChatBlob.method(env), DeleteBlob.method(env),
            GetBlobUsage.method(env),
        ]
        let served = Set(methods.map(\.nsid)).union([subscribeEvents])
        for nsid in ChatSchema.contract.methods.keys.sorted() where !served.contains(nsid) {
            methods.append(cutover(nsid))
        }
        return methods
    }

    /// A method of the contract this service does not serve yet.
    static func cutover(_ nsid: String) -> XRPCMethod {
        let kind: XRPCMethod.Kind = ChatSchema.contract.method(nsid)?.type == "query" ? .query : .procedure
        return XRPCMethod(nsid, kind, mayBlock: false) { _ in
            throw ChatRefusal(.cutoverRequired, "\(nsid) is not served by this service yet")
        }
    }
}
