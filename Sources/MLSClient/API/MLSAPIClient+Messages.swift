import Foundation
import Lexicon

/// Message, welcome and blob methods (API.md, Methods).
extension MLSAPIClient {
    public func sendMessage(_ input: SendMessageInput) async throws(MLSAPIError) -> SendMessageOutput {
        try await call(.procedure(Self.namespace + "sendMessage", input))
    }

    public func getMessages(convoId: String, sinceSeq: Int64? = nil, limit: Int? = nil, fromEpoch: Int64? = nil,
                            toEpoch: Int64? = nil, type: MessageTypeFilter? = nil) async throws(MLSAPIError) -> GetMessagesOutput {
        var parameters = [("convoId", convoId)]
        if let sinceSeq { parameters.append(("sinceSeq", String(sinceSeq))) }
        if let limit { parameters.append(("limit", String(limit))) }
        if let fromEpoch { parameters.append(("fromEpoch", String(fromEpoch))) }
        if let toEpoch { parameters.append(("toEpoch", String(toEpoch))) }
        if let type { parameters.append(("type", type.rawValue)) }
        return try await call(.query(Self.namespace + "getMessages", parameters))
    }

    public func getWelcome(convoId: String) async throws(MLSAPIError) -> GetWelcomeOutput {
        try await call(.query(Self.namespace + "getWelcome", [("convoId", convoId)]))
    }

    public func confirmWelcome(_ input: ConfirmWelcomeInput) async throws(MLSAPIError) -> ConfirmWelcomeOutput {
        try await call(.procedure(Self.namespace + "confirmWelcome", input))
    }

    /// Uploads encrypted attachment bytes; refuses more than `maxBlobSize` before sending, and maps
    /// the service's 413 BlobTooLarge to `.blobTooLarge`.
    public func uploadBlob(convoId: String, data: [UInt8], contentType: String = "application/octet-stream") async throws(MLSAPIError) -> UploadBlobOutput {
        guard data.count <= Self.maxBlobSize else { throw .blobTooLarge(size: data.count, limit: Self.maxBlobSize) }
        let request = XRPCRequest(nsid: Self.namespace + "uploadBlob", kind: .procedure(body: data, contentType: contentType),
                                  parameters: [("convoId", convoId)])
        do {
            return try await call(request)
        } catch .http(413, let name, _) where name == "BlobTooLarge" || name == "PayloadTooLarge" {
            throw .blobTooLarge(size: data.count, limit: Self.maxBlobSize)
        }
    }

    /// The raw bytes of a blob.
    public func getBlob(blobId: String) async throws(MLSAPIError) -> [UInt8] {
        try await send(.query(Self.namespace + "getBlob", [("blobId", blobId)])).body
    }

    public func getSubscriptionTicket(convoId: String? = nil) async throws(MLSAPIError) -> GetSubscriptionTicketOutput {
        try await call(.procedure(Self.namespace + "getSubscriptionTicket", GetSubscriptionTicketInput(convoId: convoId)))
    }

    /// `subscribeConvoEvents` is a WebSocket stream; this client has no WebSocket transport yet, so
    /// callers poll `getMessages` instead.
    public func subscribeConvoEvents(ticket: String, cursor: String? = nil) throws(MLSAPIError) -> Never {
        throw .notSupported("subscribeConvoEvents (WebSocket); poll getMessages instead")
    }
}
