import MLS

extension GroupError {
    /// A short reason for the client, naming the rule that failed; never secrets or payloads.
    var clientDescription: String {
        switch self {
        case .wrongGroupID: return "the commit is for another group"
        case .wrongEpoch(let expected, let actual): return "the commit is from epoch \(actual), the group is at \(expected)"
        case .unexpectedMessage(let what): return "unexpected message: \(what)"
        case .unknownSender: return "the sender is not a member"
        case .senderNotAllowed: return "the sender may not send this"
        case .invalidSignature: return "the signature does not verify"
        case .invalidMembershipTag: return "invalid membership tag"
        case .missingConfirmationTag: return "the commit has no confirmation tag"
        case .invalidConfirmationTag: return "invalid confirmation tag"
        case .unknownProposalReference: return "the commit refers to a proposal the service has not seen this epoch"
        case .ownCommit: return "own commit"
        case .invalidProposalList(let rule): return "proposal list breaks RFC 9420 §12.2: \(rule)"
        case .invalidProposal(let type, let reason): return "invalid proposal \(type.rawValue): \(reason)"
        case .invalidKeyPackage(let error): return "an added KeyPackage is invalid: \(error)"
        case .pathRequired: return "the commit needs an UpdatePath"
        case .invalidExternalCommit(let reason): return "invalid external commit: \(reason)"
        case .missingPSK: return "a PSK the commit names is unknown"
        case .malformedExtension(let type): return "extension \(type.rawValue) does not decode (RFC 9420 §13)"
        case .invalidGroupInfo(let reason): return "invalid GroupInfo: \(reason)"
        case .notAMember: return "not a member"
        case .cipherSuiteMismatch: return "cipher suite mismatch"
        case .invalidSerializedState: return "stored state unreadable"
        case .tree(.treeTooWide(let lastLeaf, let maxLeaves)):
            return "the ratchet tree's last leaf is \(lastLeaf); this service takes trees whose leaves lie below \(maxLeaves)"
        case .tree(let error): return "ratchet tree: \(error)"
        case .framing(let error): return "framing: \(error)"
        case .welcome(let error): return "welcome: \(error)"
        case .schedule: return "key schedule error"
        case .decoding(.tooManyElements(let limit)): return "a list holds more than the \(limit) entries allowed"
        case .decoding: return "malformed MLS encoding"
        case .crypto: return "cryptographic check failed"
        }
    }
}

/// The client-facing reason for any error from the MLS core.
func mlsFailureDescription(_ error: any Error) -> String {
    if let error = error as? GroupError { return error.clientDescription }
    if let error = error as? KeyPackageError { return "\(error)" }
    return "invalid MLS object"
}
