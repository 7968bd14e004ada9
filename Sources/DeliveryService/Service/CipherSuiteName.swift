import MLS

/// The API's `cipherSuite` text for the suite ids the store keeps (names from `CipherSuite.name`).
enum CipherSuiteName {
    static func name(_ id: UInt16) -> String { CipherSuite(rawValue: id)?.name ?? String(id) }

    /// The suite id for a name (or its decimal id); 400 InvalidCipherSuite otherwise.
    static func id(_ text: String) throws(XRPCError) -> UInt16 {
        guard let suite = CipherSuite(name: text) else {
            throw XRPCError(400, .invalidCipherSuite, "unsupported cipher suite \(text.prefix(80))")
        }
        return suite.rawValue
    }
}
