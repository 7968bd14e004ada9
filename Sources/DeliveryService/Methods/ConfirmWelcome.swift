import Lexicon

/// `blue.catbird.mls.confirmWelcome`: the recipient reports that it processed (or failed to
/// process) its Welcome; a confirmed Welcome is no longer served.
enum ConfirmWelcome {
    typealias Input = ConfirmWelcomeInput
    typealias Output = ConfirmWelcomeOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.confirmWelcome", .procedure, maxBodySize: 16 << 10) { context in
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            if let details = input.errorDetails, details.utf8.count > 1024 {
                throw XRPCError.invalidRequest("errorDetails is longer than 1024 bytes")
            }
            let confirmed = try env.store.confirmWelcome(convoID: convoID, recipient: context.caller,
                                                         success: input.success, errorDetails: input.errorDetails)
            return .json(Output(confirmed: confirmed))
        }
    }
}
