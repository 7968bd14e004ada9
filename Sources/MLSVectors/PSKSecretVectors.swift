import MLS

/// psk_secret.json: chaining 0–10 external PSKs into psk_secret (RFC 9420 §8.4).
public enum PSKSecretVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        guard let psks = try VectorJSON.array(testCase, "psks") as? [[String: Any]] else {
            throw VectorMismatch("psks is not an array of objects")
        }
        let inputs = try psks.map { psk in
            // PreSharedKeyID with psktype external (1), encoded directly until the struct lands.
            var writer = TLSWriter()
            writer.write(UInt8(1))
            writer.writeOpaque(try VectorJSON.hex(psk, "psk_id"))
            writer.writeOpaque(try VectorJSON.hex(psk, "psk_nonce"))
            return PSKSecret.Input(encodedID: writer.bytes, psk: try VectorJSON.hex(psk, "psk"))
        }
        try VectorJSON.expect(try PSKSecret.compute(suite: suite, psks: inputs), try VectorJSON.hex(testCase, "psk_secret"), "psk_secret")
    }
}
