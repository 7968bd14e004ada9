import ChatProtocol

extension ChatAPI {
    /// `uploadBlob`: the ciphertext as `application/octet-stream` with the device and its ticket;
    /// the answer (`binding`, `uploadedAt`) read against the lexicon.
    @discardableResult
    public func uploadBlob(_ bytes: [UInt8], device: ChatUUID, ticket: String) throws -> ChatValue {
        let nsid = Self.nsid("uploadBlob")
        let parameters = [("actorDeviceId", device.description), ("uploadTicket", ticket)]
        capture?.params(nsid, parameters, schema: projection.schema.method(nsid)?.parameters)
        return try answer(nsid, XRPCRequest(nsid: nsid, kind: .procedure(body: bytes, contentType: "application/octet-stream"),
                                            parameters: parameters))
    }

    /// `getBlob`: the blob's ciphertext as the service sends it.
    public func getBlob(_ blob: ChatUUID, device: ChatUUID) throws -> [UInt8] {
        let nsid = Self.nsid("getBlob")
        let parameters = [("actorDeviceId", device.description), ("blobId", blob.description)]
        capture?.params(nsid, parameters, schema: projection.schema.method(nsid)?.parameters)
        return try client.sendBlocking(XRPCRequest(nsid: nsid, kind: .query, parameters: parameters), token: try token(nsid)).body
    }
}
