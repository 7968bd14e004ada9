/// The limits' settings read from the environment (README, "Configuration").
extension ServiceLimits {
    /// `self` with THIN_MESSAGE_MAX_BYTES applied: the largest size a thin-mode message may declare
    /// (1 … 2 GiB; default 10 MiB); and BLOB_QUOTA_BYTES, each user's blob storage (default 1 GiB).
    func applying(environment env: [String: String]) throws(ServiceConfiguration.ConfigurationError) -> ServiceLimits {
        var limits = self
        if let text = env["THIN_MESSAGE_MAX_BYTES"], !text.isEmpty {
            guard let value = Int(text), (1...Int(Int32.max)).contains(value) else {
                throw .invalid("THIN_MESSAGE_MAX_BYTES", text)
            }
            limits.maxExternalMessageBytes = value
        }
        if let text = env["BLOB_QUOTA_BYTES"], !text.isEmpty {
            guard let value = Int64(text), value >= 0 else { throw .invalid("BLOB_QUOTA_BYTES", text) }
            limits.blobQuotaBytes = value
        }
        return limits
    }
}
