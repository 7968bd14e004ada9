import Primitives

/// Why a group operation was refused (RFC 9420 §10–12). Both faces, the member's `Group` and the
/// secret-less `PublicGroup`, throw these; each case names the rule that failed.
public enum GroupError: Error, Sendable, Equatable {
    /// The message names another group.
    case wrongGroupID
    /// The message belongs to another epoch than the current one.
    case wrongEpoch(expected: UInt64, actual: UInt64)
    /// A message of a kind this operation does not take (an application message where a commit is
    /// expected, a Welcome where a PublicMessage is expected, …).
    case unexpectedMessage(String)
    /// The sender is not a current member leaf, not a known external sender, or not allowed to send this.
    case unknownSender(Sender)
    /// The sender type may not send this content or proposal type (RFC 9420 §6, §12.1).
    case senderNotAllowed(Sender, ProposalType?)
    case invalidSignature
    case invalidMembershipTag
    case missingConfirmationTag
    case invalidConfirmationTag
    /// A commit refers to a proposal this epoch never saw (RFC 9420 §12.4).
    case unknownProposalReference([UInt8])
    /// A member processing its own commit: it moves to the next epoch from the commit output instead.
    case ownCommit
    /// A §12.2 rule for the proposal list of a commit.
    case invalidProposalList(ProposalListRule)
    /// An individual proposal that is invalid (RFC 9420 §12.1).
    case invalidProposal(ProposalType, String)
    /// An Add whose KeyPackage fails RFC 9420 §10.1.
    case invalidKeyPackage(KeyPackageError)
    /// The commit lacks the UpdatePath that RFC 9420 §12.4 requires.
    case pathRequired
    /// An external commit that breaks RFC 9420 §12.4.3.2.
    case invalidExternalCommit(String)
    /// A PSK named by a proposal or a Welcome that this member does not have (RFC 9420 §8.4).
    case missingPSK(PreSharedKeyID)
    /// A known extension whose data does not decode as its type says (RFC 9420 §13): never read as
    /// absent.
    case malformedExtension(ExtensionType)
    /// The GroupInfo or tree does not fit the group (signer, tree hash, epoch, context mismatch).
    case invalidGroupInfo(String)
    /// This member was removed by the commit, or is not in the tree it joined.
    case notAMember
    /// A key or parameter does not belong to the group's cipher suite.
    case cipherSuiteMismatch
    /// Persisted state that cannot be read back.
    case invalidSerializedState(String)
    case tree(TreeError)
    case framing(FramingError)
    case welcome(WelcomeError)
    case schedule(ScheduleError)
    case decoding(DecodingError)
    case crypto(CryptoError)
}

/// The RFC 9420 §12.2 constraints on the proposals a commit covers.
public enum ProposalListRule: Sendable, Equatable {
    /// Two Adds for the same client (same signature key or same KeyPackage), or an Add of a client
    /// already in the group that is not also removed.
    case duplicateAdd
    /// A Remove of a blank leaf or of a leaf outside the tree.
    case removeOfBlankLeaf(UInt32)
    /// The committer removes itself.
    case committerRemoved
    /// More than one Update or Remove for the same leaf.
    case multipleChangesToLeaf(UInt32)
    /// An Update proposal sent by the committer itself.
    case updateByCommitter
    /// ExternalInit outside an external commit.
    case externalInitNotAllowed
    case duplicatePSK
    /// ReInit together with any other proposal.
    case reInitNotAlone
    case multipleGroupContextExtensions
    /// A GroupContextExtensions some member cannot support.
    case unsupportedExtensions
    /// A proposal type some member does not support.
    case unsupportedProposalType(ProposalType)
}
