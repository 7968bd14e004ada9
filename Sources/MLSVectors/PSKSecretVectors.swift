import MLS

/// psk_secret.json: chaining 0–10 external PSKs into psk_secret (RFC 9420 §8.4).
public enum PSKSecretVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        guard let psks = try VectorJSON.array(testCase, "psks") as? [[String: Any]] else {
            throw VectorMismatch("psks is not an array of objects")
        }
        let inputs = try psks.map { psk in
            (id: PreSharedKeyID(kind: .external(pskID: try VectorJSON.hex(psk, "psk_id")), pskNonce: try VectorJSON.hex(psk, "psk_nonce")),
             psk: try VectorJSON.hex(psk, "psk"))
        }
        let expected = try VectorJSON.hex(testCase, "psk_secret")
        try VectorJSON.expect(try PSKSecret.compute(suite: suite, namedPSKs: inputs), expected, "psk_secret")
        try VectorJSON.expect(try chainedWithPSKLabel(suite, inputs), expected, "psk_secret via PSKLabel")
    }

    /// The §8.4 chain written out with the PSKLabel struct, as a check on PSKSecret's own encoding.
    static func chainedWithPSKLabel(_ suite: CipherSuite, _ psks: [(id: PreSharedKeyID, psk: [UInt8])]) throws -> [UInt8] {
        let zero = [UInt8](repeating: 0, count: suite.nh)
        var secret = zero
        for (index, entry) in psks.enumerated() {
            let label = PSKLabel(id: entry.id, index: UInt16(index), count: UInt16(psks.count))
            let extracted = try suite.kdfExtract(salt: zero, ikm: entry.psk)
            let input = try suite.expandWithLabel(secret: extracted, label: "derived psk", context: label.encoded(), length: suite.nh)
            secret = try suite.kdfExtract(salt: input, ikm: secret)
        }
        return secret
    }
}
