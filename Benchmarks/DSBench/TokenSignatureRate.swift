import Primitives

/// ES256K signing and verification per second on one core: every request costs the server one
/// verification (AUTH.md check 7), and the bench one signature to mint its token.
enum TokenSignatureRate {
    static func measure(seconds: Double = 0.5) throws -> (sign: Double, verify: Double) {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let message = Array(String(repeating: "x", count: 300).utf8)
        let signature = try key.signature(for: message, hash: .sha256).raw
        let sign = try rate(seconds) { _ = try key.signature(for: message, hash: .sha256) }
        let verify = try rate(seconds) {
            guard key.publicKey.isValidSignature(raw: signature, for: message, hash: .sha256) else {
                throw BenchError.unexpected("an ES256K signature did not verify")
            }
        }
        return (sign, verify)
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
