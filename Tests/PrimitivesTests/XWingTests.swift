import Primitives
import XCTest

/// X-Wing: the draft's first vector (the full set runs in `crypto-vectors`), tampering, sizes, and
/// the two DeriveKeyPair variants.
final class XWingTests: XCTestCase {
    func test_draftVector0() throws {
        let seed = try hex("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26")
        let eseed = try hex("3cb1eea988004b93103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e2"
            + "35b8cc873c23dc62b8d260169afa2f75ab916a58d974918835d25e6a435085b2")
        let pk = try XWing.publicKey(privateKey: seed)
        XCTAssertEqual(pk.count, 1216)
        XCTAssertEqual(SHA3.sha256(pk), try hex("5121745904643ad9dfacca7869292c19a8a69533b53e60666b7db910b4ad6367"))
        let (ss, ct) = try XWing.encapsulate(publicKey: pk, seed: eseed)
        XCTAssertEqual(ct.count, 1120)
        XCTAssertEqual(SHA3.sha256(ct), try hex("c0abd149f83f45324ac3a7ddc7606c71f257e5ea86113522834a0ee1bcb34e3e"))
        XCTAssertEqual(ss, try hex("d2df0522128f09dd8e2c92b1e905c793d8f57a54c3da25861f10bf4ca613e384"))
        XCTAssertEqual(try XWing.decapsulate(privateKey: seed, ciphertext: ct), ss)
    }

    /// A changed ML-KEM part gives another secret (ML-KEM's implicit rejection inside the combiner);
    /// a changed X25519 part changes ss_X and ct_X in the combiner. Neither throws.
    func test_tamperedCiphertext_decapsulatesToAnotherSecret() throws {
        let (sk, pk) = try XWing.generateKeyPair()
        let (ss, ct) = try XWing.encapsulate(publicKey: pk)
        for index in [0, 1087, 1088, 1119] {
            var tampered = ct
            tampered[index] ^= 0x02
            let other = try XWing.decapsulate(privateKey: sk, ciphertext: tampered)
            XCTAssertNotEqual(other, ss, "byte \(index)")
            XCTAssertEqual(other.count, 32)
        }
    }

    func test_wrongSizes_areRefused() throws {
        let (sk, pk) = try XWing.generateKeyPair()
        let (_, ct) = try XWing.encapsulate(publicKey: pk)
        XCTAssertThrowsError(try XWing.publicKey(privateKey: Array(sk.dropLast())))
        XCTAssertThrowsError(try XWing.publicKey(privateKey: sk + [0]))
        XCTAssertThrowsError(try XWing.encapsulate(publicKey: Array(pk.dropLast())))
        XCTAssertThrowsError(try XWing.encapsulate(publicKey: pk + [0]))
        XCTAssertThrowsError(try XWing.encapsulate(publicKey: pk, seed: SecureRandom.bytes(63)))
        XCTAssertThrowsError(try XWing.decapsulate(privateKey: sk, ciphertext: Array(ct.dropLast())))
        XCTAssertThrowsError(try XWing.decapsulate(privateKey: sk, ciphertext: ct + [0]))
        XCTAssertThrowsError(try XWing.decapsulate(privateKey: [], ciphertext: ct))
        // An ML-KEM part that fails FIPS 203 §7.2 (a coefficient of 4095) is refused at encapsulation.
        var unreduced = pk
        unreduced[0] = 0xFF
        unreduced[1] |= 0x0F
        XCTAssertThrowsError(try XWing.encapsulate(publicKey: unreduced))
    }

    /// SHAKE256(ikm, 32) (X-Wing draft §5.6, what OpenMLS 0.8 uses) and draft-ietf-hpke-pq's
    /// LabeledDerive give different keys; the HPKE-PQ vector's skRm is the labeled one.
    func test_deriveKeyPair_variants() throws {
        let ikm = try hex("b86e76a59fabfc87b30cd7b1f7aaa28a834eb64e7a261c197b9a842893fbce56")
        let plain = try XWing.deriveKeyPair(ikm: ikm)
        XCTAssertEqual(plain.privateKey, SHAKE256.hash(ikm, count: 32))
        XCTAssertEqual(plain.publicKey, try XWing.publicKey(privateKey: plain.privateKey))
        let labeled = try XWing.labeledDeriveKeyPair(ikm: ikm)
        XCTAssertEqual(labeled.privateKey, try hex("3ec47fa82dd5689d27c6190e724c74ec8f608df3331ce331929e37b829676630"))
        XCTAssertNotEqual(plain.privateKey, labeled.privateKey)
    }
}
