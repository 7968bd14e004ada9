import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.submitTransition`: one endpoint, five signed shapes (defs `signedTransition`).
/// Three carry an MLS commit (`CommitTransition`: a plain commit, a leaf recovery's fulfilment, a
/// leave's fulfilment); two change the conversation without moving its MLS epoch
/// (`PolicyTransition`: invitations, removals of participants without leaves, roles;
/// `MetadataTransition`: the encrypted title and avatar). Each compares and swaps the
/// conversation's coordinates and becomes one entry of its log.
enum SubmitTransition {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // A 1 MiB commit and a 1 MiB Welcome, as base64 JSON, and the rest of the body.
        XRPCMethod(ChatMethods.prefix + "submitTransition", .procedure, maxBodySize: 4 << 20) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            switch call.request.kind {
            case .policyTransition: return try PolicyTransition.execute(call, context: context, device: device, verified: verified, env: env)
            case .metadataTransition: return try MetadataTransition.execute(call, device: device, verified: verified, env: env)
            default: return try CommitTransition.execute(call, context: context, device: device, verified: verified, env: env)
            }
        }
    }

    /// A transition's result (the method's output): the coordinates it moved to, its entry and the
    /// Welcome a fulfilment delivers.
    static func result(_ next: ConversationCoordinates, entry: ChatEntry, welcomes: [ChatValue] = []) -> [UInt8] {
        ChatJSON.object(["coordinates": .value(next.value), "entry": .raw(ChatViews.entry(entry)), "welcomes": .value(.array(welcomes))])
    }
}
