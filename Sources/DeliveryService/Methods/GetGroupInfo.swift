import Lexicon

/// `blue.catbird.mls.getGroupInfo`: the GroupInfo of the current epoch, for external joins. Only
/// current members may read it (a member who lost its state rejoins by external commit).
enum GetGroupInfo {
    typealias Output = GetGroupInfoOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getGroupInfo", .query) { context in
            let convoID = try InputValidation.convoID(try context.parameters.requiredString("convoId"))
            let convo = try env.convo(convoID, memberDID: context.caller)
            guard let groupInfo = convo.currentGroupInfo else {
                throw XRPCError.notFound(.groupInfoUnavailable, "no GroupInfo has been stored for epoch \(convo.epoch)")
            }
            return .json(Output(groupInfo: groupInfo, epoch: convo.epoch))
        }
    }
}
