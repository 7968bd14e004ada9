import DeliveryStore
import MLS

extension MethodEnvironment {
    /// The conversation's stored public state, rebuilt within `storedTreeLimits`. A tree wider than
    /// those (one stored before the limits existed: a blank-tree attack) is refused before it is
    /// built, as a 409 that names the limit, instead of being padded and rehashed on every call.
    func publicGroup(of convo: ConvoState) throws(XRPCError) -> PublicGroup {
        do {
            return try PublicGroup(serialized: convo.publicState, limits: limits.storedTreeLimits)
        } catch .tree(.treeTooWide), .decoding(.tooManyElements) {
            throw XRPCError.conflict(.tooManyMembers,
                                     "the conversation's tree is wider than the \(limits.maxTreeLeaves) leaves this service follows")
        } catch {
            log.error("stored public state unreadable", ["convo": convo.convoID])
            throw XRPCError.internalError
        }
    }
}
