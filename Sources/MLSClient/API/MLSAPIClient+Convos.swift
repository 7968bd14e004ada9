import Foundation
import Lexicon

/// Conversation and group-state methods (API.md, Methods).
extension MLSAPIClient {
    public static let namespace = "blue.catbird.mls."

    public func createConvo(_ input: CreateConvoInput) async throws(MLSAPIError) -> ConvoView {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "createConvo", input))
    }

    public func getConvos(limit: Int? = nil, cursor: String? = nil) async throws(MLSAPIError) -> GetConvosOutput {
        var parameters: [(String, String)] = []
        if let limit { parameters.append(("limit", String(limit))) }
        if let cursor { parameters.append(("cursor", cursor)) }
        return try await call(.query(Self.namespace + "getConvos", parameters))
    }

    public func getConvo(convoId: String) async throws(MLSAPIError) -> ConvoView {
        try await call(.query(Self.namespace + "getConvo", [("convoId", convoId)]))
    }

    public func addMembers(_ input: AddMembersInput) async throws(MLSAPIError) -> AddMembersOutput {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "addMembers", input))
    }

    public func removeMember(_ input: RemoveMemberInput) async throws(MLSAPIError) -> RemoveMemberOutput {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "removeMember", input))
    }

    public func commitGroupChange(_ input: CommitGroupChangeInput) async throws(MLSAPIError) -> CommitGroupChangeOutput {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "commitGroupChange", input))
    }

    public func leaveConvo(_ input: LeaveConvoInput) async throws(MLSAPIError) -> LeaveConvoOutput {
        try await call(.procedure(Self.namespace + "leaveConvo", input))
    }

    public func processExternalCommit(_ input: ProcessExternalCommitInput) async throws(MLSAPIError) -> ProcessExternalCommitOutput {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "processExternalCommit", input))
    }

    public func getEpoch(convoId: String) async throws(MLSAPIError) -> GetEpochOutput {
        try await call(.query(Self.namespace + "getEpoch", [("convoId", convoId)]))
    }

    public func getGroupInfo(convoId: String) async throws(MLSAPIError) -> GetGroupInfoOutput {
        try await call(.query(Self.namespace + "getGroupInfo", [("convoId", convoId)]))
    }

    public func updateGroupInfo(_ input: UpdateGroupInfoInput) async throws(MLSAPIError) -> UpdateGroupInfoOutput {
        try await call(.procedure(Self.namespace + "updateGroupInfo", input))
    }

    public func getCommits(convoId: String, fromEpoch: Int64, toEpoch: Int64? = nil) async throws(MLSAPIError) -> GetCommitsOutput {
        var parameters = [("convoId", convoId), ("fromEpoch", String(fromEpoch))]
        if let toEpoch { parameters.append(("toEpoch", String(toEpoch))) }
        return try await call(.query(Self.namespace + "getCommits", parameters))
    }

    /// A fresh key so that retries of one logical call are answered once (API.md, Idempotency).
    static func newIdempotencyKey() -> String { UUID().uuidString.lowercased() }
}
