import MLS
import Primitives

/// Crypto micro-benchmarks: HPKE, SignWithLabel/VerifyWithLabel, AEAD on 1 KB, one ratchet step,
/// for suites 1 and 3 (the figures) and 2 (ECDSA P-256).
enum CryptoBench {
    static func run() throws {
        let kilobyte = SecureRandom.bytes(1024)

        for id: UInt16 in [1, 2, 3] {
            let suite = CipherSuite(rawValue: id)!
            print("— \(suite) —")
            let recipient = try suite.generateHPKEKeyPair()
            let sealed = try suite.hpke.sealBase(publicKey: recipient.publicKey, info: [], aad: [], plaintext: kilobyte)
            try measure("HPKE SealBase 1 KB") {
                _ = try suite.hpke.sealBase(publicKey: recipient.publicKey, info: [], aad: [], plaintext: kilobyte)
            }
            try measure("HPKE OpenBase 1 KB") {
                _ = try suite.hpke.openBase(enc: sealed.enc, privateKey: recipient.privateKey, info: [], aad: [], ciphertext: sealed.ciphertext)
            }

            let signer = try suite.signatureScheme.generatePrivateKey()
            let signature = try suite.signWithLabel(signer, label: "bench", content: kilobyte)
            try measure("SignWithLabel 1 KB") { _ = try suite.signWithLabel(signer, label: "bench", content: kilobyte) }
            measure("VerifyWithLabel 1 KB") {
                precondition(suite.verifyWithLabel(signer.publicKey, label: "bench", content: kilobyte, signature: signature))
            }
            let keyBytes = signer.publicKey.bytes
            measure("VerifyWithLabel 1 KB, key parsed each time") {
                precondition(suite.verifyWithLabel(publicKey: keyBytes, label: "bench", content: kilobyte, signature: signature))
            }

            let key = SecureRandom.bytes(suite.nk)
            let nonce = SecureRandom.bytes(suite.nn)
            let ciphertext = try suite.seal(key: key, nonce: nonce, aad: [], plaintext: kilobyte)
            try measure("AEAD seal 1 KB") { _ = try suite.seal(key: key, nonce: nonce, aad: [], plaintext: kilobyte) }
            try measure("AEAD open 1 KB") { _ = try suite.open(key: key, nonce: nonce, aad: [], ciphertext: ciphertext) }

            var ratchet = SenderRatchet(suite: suite, secret: SecureRandom.bytes(suite.nh))
            try measure("sender ratchet step (key+nonce+secret)") { _ = try ratchet.next() }
        }
    }
}
