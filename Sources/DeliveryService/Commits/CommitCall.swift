import Basics
import DeliveryStore
import Lexicon

/// The input of a commit-carrying method: its conversation, the commit, and what may come with it.
protocol CommitInput: Decodable {
    /// Whether the method takes a sealed (PrivateMessage) commit: every one but
    /// processExternalCommit, whose commit is always a PublicMessage (RFC 9420 §12.4.3.2).
    static var takesSealedCommits: Bool { get }
    var convoId: String { get }
    var commitBytes: [UInt8] { get }
    var groupInfo: ATBytes? { get }
    var welcomeBytes: [UInt8]? { get }
    var idempotencyKey: String? { get }
}

extension CommitInput {
    static var takesSealedCommits: Bool { true }
}

extension AddMembersInput: CommitInput {
    var commitBytes: [UInt8] { commit.bytes }
    var welcomeBytes: [UInt8]? { welcomeMessage.bytes }
}

extension RemoveMemberInput: CommitInput {
    var commitBytes: [UInt8] { commit.bytes }
    var welcomeBytes: [UInt8]? { nil }
}

extension CommitGroupChangeInput: CommitInput {
    var commitBytes: [UInt8] { commit.bytes }
    var welcomeBytes: [UInt8]? { welcomeMessage?.bytes }
}

extension ProcessExternalCommitInput: CommitInput {
    static var takesSealedCommits: Bool { false }
    var commitBytes: [UInt8] { externalCommit.bytes }
    var welcomeBytes: [UInt8]? { nil }
}

/// One call of a commit-carrying method (addMembers, removeMember, commitGroupChange,
/// processExternalCommit): what they share around their own checks. `init` decodes the input and
/// its conversation id, `validate()` runs `CommitPipeline` (or `SealedCommitPipeline` for a
/// PrivateMessage commit) for the caller, `apply` stores the
/// validated commit in one idempotent, epoch-guarded transaction.
struct CommitCall<Input: CommitInput> {
    let context: AuthenticatedContext
    let input: Input
    let convoID: String
    private let pipeline: CommitPipeline
    private let request: CommitPipeline.Request

    var caller: DID { context.caller }

    init(_ context: AuthenticatedContext, env: MethodEnvironment) throws(XRPCError) {
        self.context = context
        input = try context.input(Input.self)
        convoID = try InputValidation.convoID(input.convoId)
        pipeline = CommitPipeline(env: env)
        request = CommitPipeline.Request(convoID: convoID, commit: input.commitBytes, groupInfo: input.groupInfo?.bytes,
                                         welcome: input.welcomeBytes, caller: context.caller)
    }

    /// A PrivateMessage commit takes the sealed path (docs/sealed-commits.md), anything else the public one.
    func validate() throws -> CommitPipeline.Validated {
        if Input.takesSealedCommits, MLSInput.isPrivateMessage(request.commit) {
            return try SealedCommitPipeline(pipeline: pipeline).validate(request)
        }
        return try pipeline.validate(request)
    }

    /// Applies `validated` and answers with `output` of the outcome.
    func apply<Output: Encodable & Sendable>(_ validated: CommitPipeline.Validated,
                                             departures: [UInt32: DepartureReason] = [:],
                                             _ output: (CommitOutcome) -> Output) throws -> XRPCOutput {
        let application = pipeline.application(validated, request: request, departures: departures)
        return try pipeline.env.idempotent(context, key: input.idempotencyKey) { tx in output(try tx.applyCommit(application)) }
    }
}
