import Primitives

/// ES256K signing and verification per second on one core: every request costs the server one
/// verification (AUTH.md check 7), and the bench one signature to mint its token.
enum TokenSignatureRate {
    /// Signing with OpenSSL; verifying natively, as the server does, with a key it has seen before
    /// (the key's own tables, `Secp256k1.KeyTables`) and with a key at its first use.
    static func measure(seconds: Double = 0.5) throws -> (sign: Double, verify: Double, firstUse: Double) {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let message = Array(String(repeating: "x", count: 300).utf8)
        let signature = try key.signature(for: message, hash: .sha256).raw
        let sign = try rate(seconds) { _ = try key.signature(for: message, hash: .sha256) }
        let verify = try rate(seconds) {
            guard key.publicKey.isValidSignature(raw: signature, for: message, hash: .sha256) else {
                throw BenchError.unexpected("an ES256K signature did not verify")
            }
        }
        // A fresh public key object per verification: each is at its first use.
        let strangers = try (0..<400).map { _ in
            let stranger = try ECDSAPrivateKey.generate(curve: .secp256k1)
            return (try ECDSAPublicKey(curve: .secp256k1, sec1: stranger.publicKey.uncompressed),
                    try stranger.signature(for: message, hash: .sha256).raw)
        }
        let clock = Stopwatch()
        for (publicKey, signature) in strangers where !publicKey.isValidSignature(raw: signature, for: message, hash: .sha256) {
            throw BenchError.unexpected("an ES256K signature did not verify")
        }
        return (sign, verify, Double(strangers.count) / clock.seconds)
    }

    private static func rate(_ seconds: Double, _ body: () throws -> Void) throws -> Double {
        let clock = Stopwatch()
        var count = 0
        while clock.seconds < seconds {
            try body()
            count += 1
        }
        return Double(count) / clock.seconds
    }
}
