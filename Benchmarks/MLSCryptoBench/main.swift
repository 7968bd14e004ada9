// Crypto micro-benchmarks for suites 1 and 3 (and 2 for ECDSA). Build and run: see README.md.
import Dispatch
import MLS
import Primitives

/// Runs `body` repeatedly for about `seconds` and prints operations per second.
func measure(_ name: String, seconds: Double = 1.0, _ body: () throws -> Void) rethrows {
    for _ in 0..<10 { try body() }
    var iterations = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let budget = UInt64(seconds * 1e9)
    var elapsed: UInt64 = 0
    while elapsed < budget {
        for _ in 0..<20 { try body() }
        iterations += 20
        elapsed = DispatchTime.now().uptimeNanoseconds - start
    }
    let rate = Double(iterations) / (Double(elapsed) / 1e9)
    let padded = name + String(repeating: " ", count: max(0, 44 - name.count))
    print("\(padded) \(String(Int(rate.rounded())).leftPadded(9)) ops/s  (\(Int((1e6 / rate).rounded())) µs/op)")
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

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

    let key = SecureRandom.bytes(suite.nk)
    let nonce = SecureRandom.bytes(suite.nn)
    let ciphertext = try suite.seal(key: key, nonce: nonce, aad: [], plaintext: kilobyte)
    try measure("AEAD seal 1 KB") { _ = try suite.seal(key: key, nonce: nonce, aad: [], plaintext: kilobyte) }
    try measure("AEAD open 1 KB") { _ = try suite.open(key: key, nonce: nonce, aad: [], ciphertext: ciphertext) }

    var ratchet = SenderRatchet(suite: suite, secret: SecureRandom.bytes(suite.nh))
    try measure("sender ratchet step (key+nonce+secret)") { _ = try ratchet.next() }
}
