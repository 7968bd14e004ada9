@testable import MLS
import Primitives
import XCTest

final class HPKETests: XCTestCase {
    // RFC 9180 Appendix A.1.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode.
    func test_rfc9180_A_1_baseMode() throws {
        let hpke = HPKE(kem: .dhkemX25519, kdf: .sha256, aead: .aes128GCM)
        let info = try bytes("4f6465206f6e2061204772656369616e2055726e")
        let ephemeral = try hpke.kem.deriveKeyPair(ikm: bytes("7268600d403fce431561aef583ee1613527cff655c1343f29812e66706df3234"))
        XCTAssertEqual(ephemeral.privateKey, try bytes("52c4a758a802cd8b936eceea314432798d5baf2d7e9235dc084ab1b9cfa2f736"))
        XCTAssertEqual(ephemeral.publicKey, try bytes("37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431"))
        let recipient = try hpke.kem.deriveKeyPair(ikm: bytes("6db9df30aa07dd42ee5e8181afdb977e538f5e1fec8a06223f33f7013e525037"))
        XCTAssertEqual(recipient.privateKey, try bytes("4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8"))
        XCTAssertEqual(recipient.publicKey, try bytes("3948cfe0ad1ddb695d780e59077195da6c56506b027329794ab02bca80815c4d"))

        let (sharedSecret, enc) = try hpke.kem.encap(publicKey: recipient.publicKey, ephemeral: ephemeral)
        XCTAssertEqual(enc, ephemeral.publicKey)
        XCTAssertEqual(sharedSecret, try bytes("fe0e18c9f024ce43799ae393c7e8fe8fce9d218875e8227b0187c04e7d2ea1fc"))

        var sender = try hpke.setupBaseS(publicKey: recipient.publicKey, info: info, ephemeral: ephemeral).context
        var receiver = try hpke.setupBaseR(enc: enc, privateKey: recipient.privateKey, info: info)
        let plaintext = try bytes("4265617574792069732074727574682c20747275746820626561757479")
        let expected = [
            "f938558b5d72f1a23810b4be2ab4f84331acc02fc97babc53a52ae8218a355a96d8770ac83d07bea87e13c512a",
            "af2d7e9ac9ae7e270f46ba1f975be53c09f8d875bdc8535458c2494e8a6eab251c03d0c22a56b8ca42c2063b84",
        ]
        for (sequence, ciphertextHex) in expected.enumerated() {
            let aad = Array("Count-\(sequence)".utf8)
            let ciphertext = try sender.seal(aad: aad, plaintext: plaintext)
            XCTAssertEqual(ciphertext, try bytes(ciphertextHex), "sequence \(sequence)")
            XCTAssertEqual(try receiver.open(aad: aad, ciphertext: ciphertext), plaintext)
        }
    }

    func test_sealOpen_roundTrips_forEverySuite() throws {
        for suite in CipherSuite.allCases {
            let recipient = try suite.generateHPKEKeyPair()
            XCTAssertEqual(recipient.publicKey.count, suite.kem.nPk)
            XCTAssertEqual(recipient.privateKey.count, suite.kem.nSk)
            let plaintext = Array("welcome secrets".utf8)
            let sealed = try suite.hpke.sealBase(publicKey: recipient.publicKey, info: [1, 2], aad: [3], plaintext: plaintext)
            XCTAssertEqual(sealed.enc.count, suite.kem.nEnc, "\(suite)")
            XCTAssertEqual(try suite.hpke.openBase(enc: sealed.enc, privateKey: recipient.privateKey, info: [1, 2], aad: [3],
                                                   ciphertext: sealed.ciphertext), plaintext, "\(suite)")
            // Wrong info, aad, key or a tampered enc all fail.
            XCTAssertThrowsError(try suite.hpke.openBase(enc: sealed.enc, privateKey: recipient.privateKey, info: [1], aad: [3],
                                                         ciphertext: sealed.ciphertext))
            XCTAssertThrowsError(try suite.hpke.openBase(enc: sealed.enc, privateKey: recipient.privateKey, info: [1, 2], aad: [],
                                                         ciphertext: sealed.ciphertext))
            let other = try suite.generateHPKEKeyPair()
            XCTAssertThrowsError(try suite.hpke.openBase(enc: sealed.enc, privateKey: other.privateKey, info: [1, 2], aad: [3],
                                                         ciphertext: sealed.ciphertext))
            var badEnc = sealed.enc
            badEnc[badEnc.count - 1] ^= 1
            XCTAssertThrowsError(try suite.hpke.openBase(enc: badEnc, privateKey: recipient.privateKey, info: [1, 2], aad: [3],
                                                         ciphertext: sealed.ciphertext))
        }
    }

    func test_exporter_agreesBetweenSenderAndReceiver() throws {
        let suite = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256
        let recipient = try suite.generateHPKEKeyPair()
        let (enc, sender) = try suite.hpke.setupBaseS(publicKey: recipient.publicKey, info: [9])
        let receiver = try suite.hpke.setupBaseR(enc: enc, privateKey: recipient.privateKey, info: [9])
        XCTAssertEqual(try sender.export(exporterContext: [1], length: 42), try receiver.export(exporterContext: [1], length: 42))
        XCTAssertNotEqual(try sender.export(exporterContext: [1], length: 32), try receiver.export(exporterContext: [2], length: 32))
    }

    func test_invalidKeys_areRejectedWithoutTrapping() throws {
        for suite in CipherSuite.allCases {
            let hpke = suite.hpke
            XCTAssertThrowsError(try hpke.sealBase(publicKey: [], info: [], aad: [], plaintext: [1]))
            XCTAssertThrowsError(try hpke.sealBase(publicKey: [UInt8](repeating: 7, count: suite.kem.nPk + 1), info: [], aad: [], plaintext: [1]))
            XCTAssertThrowsError(try hpke.openBase(enc: [1, 2, 3], privateKey: [UInt8](repeating: 1, count: suite.kem.nSk), info: [], aad: [],
                                                   ciphertext: [UInt8](repeating: 0, count: 32)))
            XCTAssertThrowsError(try hpke.openBase(enc: try suite.generateHPKEKeyPair().publicKey, privateKey: [1], info: [], aad: [],
                                                   ciphertext: [UInt8](repeating: 0, count: 32)))
            XCTAssertThrowsError(try suite.kem.publicKey(privateKey: [UInt8](repeating: 0, count: suite.kem.nSk + 2)))
        }
        // NIST public keys must be uncompressed; the all-zero X25519 point gives an all-zero DH output.
        let p256 = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256
        let compressed = try ECDSAPrivateKey.generate(curve: .p256).publicKey.compressed
        XCTAssertThrowsError(try p256.hpke.sealBase(publicKey: compressed, info: [], aad: [], plaintext: [1]))
        XCTAssertThrowsError(try CipherSuite(rawValue: 1)!.hpke.sealBase(publicKey: [UInt8](repeating: 0, count: 32), info: [], aad: [],
                                                                         plaintext: [1]))
    }

    func test_deriveKeyPair_isDeterministic_andValidForEveryKEM() throws {
        for kem in KEM.allCases {
            let ikm = Array("seed".utf8)
            let a = try kem.deriveKeyPair(ikm: ikm)
            XCTAssertEqual(try kem.deriveKeyPair(ikm: ikm).privateKey, a.privateKey)
            XCTAssertEqual(try kem.publicKey(privateKey: a.privateKey), a.publicKey)
            XCTAssertNotEqual(try kem.deriveKeyPair(ikm: ikm + [0]).publicKey, a.publicKey)
        }
    }
}

func bytes(_ hex: String) throws -> [UInt8] {
    var out: [UInt8] = []
    var iterator = hex.makeIterator()
    while let high = iterator.next() {
        guard let low = iterator.next(), let value = UInt8(String([high, low]), radix: 16) else {
            throw CryptoError.invalidParameter("bad hex")
        }
        out.append(value)
    }
    return out
}
