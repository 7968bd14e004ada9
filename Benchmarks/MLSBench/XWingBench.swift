import MLS
import Primitives

/// Suite 0x004D next to suite 1 in the same run: the Keccak choice (native against OpenSSL 3.0's
/// single-squeeze EVP), ML-KEM-768 and X-Wing operations, HPKE SealBase/OpenBase of 1 KB with the
/// ratio to X25519 (goal: at most 2×), and add-100 commit / process / join.
enum XWingBench {
    static let xwing = CipherSuite.mls256XWingChaCha20Poly1305SHA256Ed25519
    static let x25519 = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    static func run() throws {
        print("— Keccak: native against OpenSSL EVP (one squeeze per context) —")
        let seed = SecureRandom.bytes(34), ek = SecureRandom.bytes(1184)
        // SampleNTT's usual need: three SHAKE128 blocks from ρ‖j‖i.
        measure("SHAKE128 34 B → 504 B, native") { _ = SHAKE128.hash(seed, count: 504) }
        measure("SHAKE128 34 B → 504 B, OpenSSL EVP") { _ = OpenSSLSHA3.hash(.shake128, seed, count: 504) }
        measure("SHAKE256 33 B → 128 B (PRF), native") { _ = SHAKE256.hash(Array(seed.prefix(33)), count: 128) }
        measure("SHAKE256 33 B → 128 B (PRF), OpenSSL EVP") { _ = OpenSSLSHA3.hash(.shake256, Array(seed.prefix(33)), count: 128) }
        measure("SHA3-256 1184 B (H(ek)), native") { _ = SHA3.sha256(ek) }
        measure("SHA3-256 1184 B (H(ek)), OpenSSL EVP") { _ = OpenSSLSHA3.hash(.sha3_256, ek) }

        print("— ML-KEM-768 and X-Wing —")
        let (mlkemEK, mlkemDK) = try MLKEM768.keyGen(d: SecureRandom.bytes(32), z: SecureRandom.bytes(32))
        let (_, mlkemCT) = try MLKEM768.encapsulate(encapsulationKey: mlkemEK)
        try measure("ML-KEM-768 KeyGen") { _ = try MLKEM768.keyGen(d: seed.prefix(32).map { $0 }, z: ek.prefix(32).map { $0 }) }
        try measure("ML-KEM-768 Encaps") { _ = try MLKEM768.encapsulate(encapsulationKey: mlkemEK) }
        try measure("ML-KEM-768 Decaps") { _ = try MLKEM768.decapsulate(decapsulationKey: mlkemDK, ciphertext: mlkemCT) }
        let (sk, pk) = try XWing.generateKeyPair()
        let (_, ct) = try XWing.encapsulate(publicKey: pk)
        try measure("X-Wing KeyGen") { _ = try XWing.generateKeyPair() }
        try measure("X-Wing Encaps") { _ = try XWing.encapsulate(publicKey: pk) }
        try measure("X-Wing Decaps") { _ = try XWing.decapsulate(privateKey: sk, ciphertext: ct) }

        print("— HPKE base mode, 1 KB: suite 1 (DHKEM X25519) and 0x004D (X-Wing), same run —")
        let kilobyte = SecureRandom.bytes(1024)
        var rates: [String: Double] = [:]
        for (name, suite) in [("X25519", x25519), ("X-Wing", xwing)] {
            let recipient = try suite.generateHPKEKeyPair()
            let sealed = try suite.hpke.sealBase(publicKey: recipient.publicKey, info: [], aad: [], plaintext: kilobyte)
            rates["seal \(name)"] = try measure("HPKE SealBase 1 KB, \(name)") {
                _ = try suite.hpke.sealBase(publicKey: recipient.publicKey, info: [], aad: [], plaintext: kilobyte)
            }
            rates["open \(name)"] = try measure("HPKE OpenBase 1 KB, \(name)") {
                _ = try suite.hpke.openBase(enc: sealed.enc, privateKey: recipient.privateKey, info: [], aad: [], ciphertext: sealed.ciphertext)
            }
        }
        for operation in ["seal", "open"] {
            let ratio = rates["\(operation) X25519"]! / rates["\(operation) X-Wing"]!
            print("HPKE \(operation): X-Wing costs " + String(format: "%.2f", ratio) + "× X25519 (goal ≤ 2×)")
        }

        for (name, suite) in [("suite 1 (X25519)", x25519), ("suite 0x004D (X-Wing)", xwing)] {
            print("— group operations, \(name) —")
            try GroupBench.addMembers(100, suite: suite)
        }
    }
}
