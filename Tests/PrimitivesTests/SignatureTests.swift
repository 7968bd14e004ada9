import CSodium
import Primitives
import XCTest

final class SignatureTests: XCTestCase {
    func test_ed25519_matchesRFC8032TestVector1() throws {
        let key = try Ed25519PrivateKey(seed: try hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        XCTAssertEqual(key.publicKey.bytes, try hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = key.signature(for: [])
        XCTAssertEqual(signature, try hex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46b"
                + "d25bf5f0595bbe24655141438e7a100b"))
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: []))
        XCTAssertFalse(key.publicKey.isValidSignature(signature, for: [0]))
    }

    func test_ed25519_roundTripAndRejections() throws {
        let key = try Ed25519PrivateKey.generate()
        let message = Array("mls".utf8)
        let signature = key.signature(for: message)
        XCTAssertEqual(key.signature(for: message), signature, "deterministic")
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
        var tampered = signature
        tampered[10] ^= 1
        XCTAssertFalse(key.publicKey.isValidSignature(tampered, for: message))
        XCTAssertFalse(key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
        XCTAssertFalse(try Ed25519PrivateKey.generate().publicKey.isValidSignature(signature, for: message))
        XCTAssertEqual(try Ed25519PrivateKey(seed: key.seed).publicKey, key.publicKey)
        XCTAssertThrowsError(try Ed25519PrivateKey(seed: [1, 2]))
        XCTAssertThrowsError(try Ed25519PublicKey(bytes: Array(key.publicKey.bytes.dropLast())))
        XCTAssertThrowsError(try Ed25519PublicKey(bytes: [UInt8](repeating: 0, count: 32)), "small-order point")
        // A verify-only key skips the point check, but verification itself refuses small-order keys:
        // with A = identity, R = [s]B and S = s satisfy [S]B = R + [k]A for any message.
        var identity = [UInt8](repeating: 0, count: 32)
        identity[0] = 1
        var scalar = [UInt8](repeating: 0, count: 32)
        scalar[0] = 7
        var r = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(crypto_scalarmult_ed25519_base_noclamp(&r, scalar), 0)
        let smallOrder = try Ed25519PublicKey(verifyingBytes: identity)
        XCTAssertFalse(smallOrder.isValidSignature(r + scalar, for: [1, 2, 3]))
        XCTAssertThrowsError(try Ed25519PublicKey(verifyingBytes: [1, 2, 3]))
    }

    func test_ed448_roundTripAndRejections() throws {
        let key = try Ed448PrivateKey.generate()
        XCTAssertEqual(key.publicKey.bytes.count, 57)
        let message = Array("mls".utf8)
        let signature = try key.signature(for: message)
        XCTAssertEqual(signature.count, 114)
        XCTAssertEqual(try key.signature(for: message), signature, "deterministic")
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
        XCTAssertTrue(key.publicKey.isValidSignature(try key.signature(for: []), for: []))
        var tampered = signature
        tampered[5] ^= 1
        XCTAssertFalse(key.publicKey.isValidSignature(tampered, for: message))
        XCTAssertFalse(key.publicKey.isValidSignature(signature, for: message + [0]))
        XCTAssertFalse(key.publicKey.isValidSignature([], for: message))
        XCTAssertEqual(try Ed448PrivateKey(seed: key.seed).publicKey.bytes, key.publicKey.bytes)
        XCTAssertThrowsError(try Ed448PrivateKey(seed: SecureRandom.bytes(56)))
        XCTAssertThrowsError(try Ed448PublicKey(bytes: SecureRandom.bytes(32)))
    }
}
