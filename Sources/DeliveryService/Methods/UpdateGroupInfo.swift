import DeliveryStore
import Lexicon
import MLS

/// `blue.catbird.mls.updateGroupInfo`: a member stores the GroupInfo of the current epoch; it must
/// match the public state the service computed (context, signer, confirmation tag, tree).
enum UpdateGroupInfo {
    typealias Input = UpdateGroupInfoInput
    typealias Output = UpdateGroupInfoOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.updateGroupInfo", .procedure, maxBodySize: 8 << 20) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            let convo = try env.convo(convoID, memberDID: caller)
            guard input.epoch == convo.epoch else { throw DeliveryStoreError.epochMismatch(current: convo.epoch) }
            let groupInfo = try MLSInput.groupInfo(input.groupInfo.bytes, limits: env.limits.decodingLimits)
            let group = try env.publicGroup(of: convo)
            do { try group.verify(groupInfo: groupInfo) } catch {
                throw XRPCError(400, .invalidGroupInfo, mlsFailureDescription(error))
            }
            try env.store.updateGroupInfo(convoID: convoID, epoch: convo.epoch, groupInfo: input.groupInfo.bytes)
            return .json(Output(updated: true))
        }
    }
}
