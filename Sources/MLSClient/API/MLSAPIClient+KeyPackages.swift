import Lexicon

/// Key package methods (API.md, Methods).
extension MLSAPIClient {
    public func publishKeyPackage(_ input: PublishKeyPackageInput) async throws(MLSAPIError) -> PublishKeyPackageOutput {
        var input = input
        input.idempotencyKey = input.idempotencyKey ?? Self.newIdempotencyKey()
        return try await call(.procedure(Self.namespace + "publishKeyPackage", input))
    }

    /// Publishes up to 100 packages in one call (the service's batch limit).
    public func publishKeyPackages(_ input: PublishKeyPackagesInput) async throws(MLSAPIError) -> PublishKeyPackagesOutput {
        try await call(.procedure(Self.namespace + "publishKeyPackages", input))
    }

    /// One key package per DID that has any (≤ 100 DIDs); does not consume them.
    public func getKeyPackages(dids: [String], cipherSuite: String? = nil) async throws(MLSAPIError) -> GetKeyPackagesOutput {
        var parameters = dids.map { ("dids", $0) }
        if let cipherSuite { parameters.append(("cipherSuite", cipherSuite)) }
        return try await call(.query(Self.namespace + "getKeyPackages", parameters))
    }

    public func getKeyPackageStats(cipherSuite: String? = nil) async throws(MLSAPIError) -> GetKeyPackageStatsOutput {
        try await call(.query(Self.namespace + "getKeyPackageStats", cipherSuite.map { [("cipherSuite", $0)] } ?? []))
    }
}
