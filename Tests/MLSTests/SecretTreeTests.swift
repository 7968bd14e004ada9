@testable import MLS
import Primitives
import XCTest

final class SecretTreeTests: XCTestCase {
    let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
    let secret = [UInt8](repeating: 0x42, count: 32)

    func test_senderAndReceiver_agree_andKeysAreSingleUse() throws {
        var sender = try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 4)
        var receiver = try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 4)
        let first = try sender.next(leaf: 2, type: .application)
        let second = try sender.next(leaf: 2, type: .application)
        XCTAssertEqual(first.generation, 0)
        XCTAssertEqual(second.generation, 1)
        XCTAssertNotEqual(first.key, second.key)
        XCTAssertEqual(try receiver.keyNonce(leaf: 2, type: .application, generation: 0), first)
        XCTAssertThrowsError(try receiver.keyNonce(leaf: 2, type: .application, generation: 0)) {
            XCTAssertEqual($0 as? ScheduleError, .generationConsumed(0))
        }
        XCTAssertEqual(try receiver.keyNonce(leaf: 2, type: .application, generation: 1), second)
        // Handshake and application ratchets, and different leaves, are independent.
        let handshake = try sender.next(leaf: 2, type: .handshake)
        XCTAssertEqual(handshake.generation, 0)
        XCTAssertNotEqual(handshake.key, first.key)
        XCTAssertNotEqual(try sender.next(leaf: 3, type: .application).key, first.key)
        XCTAssertEqual(try receiver.keyNonce(leaf: 2, type: .handshake, generation: 0), handshake)
    }

    func test_outOfOrder_keysForSkippedGenerationsAreRetainedOnce() throws {
        var sender = try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 2)
        var receiver = try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 2)
        let sent = try (0..<6).map { _ in try sender.next(leaf: 1, type: .application) }
        XCTAssertEqual(try receiver.keyNonce(leaf: 1, type: .application, generation: 5), sent[5])
        XCTAssertEqual(try receiver.keyNonce(leaf: 1, type: .application, generation: 2), sent[2])
        XCTAssertEqual(try receiver.keyNonce(leaf: 1, type: .application, generation: 0), sent[0])
        XCTAssertThrowsError(try receiver.keyNonce(leaf: 1, type: .application, generation: 2))
        XCTAssertEqual(try receiver.keyNonce(leaf: 1, type: .application, generation: 4), sent[4])
        XCTAssertEqual(try receiver.currentGeneration(leaf: 1, type: .application), 6)
    }

    func test_window_boundsForwardJumpAndRetainedKeys() throws {
        let window = RatchetWindow(maxForwardDistance: 10, maxRetainedKeys: 3)
        var ratchet = SenderRatchet(suite: suite, secret: secret, window: window)
        XCTAssertThrowsError(try ratchet.keyNonce(for: 11)) {
            XCTAssertEqual($0 as? ScheduleError, .generationTooFarAhead(requested: 11, current: 0))
        }
        _ = try ratchet.keyNonce(for: 10)
        // Ten skipped keys, of which only the newest three are kept.
        XCTAssertEqual(ratchet.retainedGenerations, [7, 8, 9])
        XCTAssertThrowsError(try ratchet.keyNonce(for: 3)) {
            XCTAssertEqual($0 as? ScheduleError, .generationConsumed(3))
        }
        _ = try ratchet.keyNonce(for: 8)
        XCTAssertEqual(ratchet.retainedGenerations, [7, 9])
        XCTAssertEqual(ratchet.generation, 11)
    }

    func test_ratchet_matchesDeriveTreeSecretChain() throws {
        // RFC 9420 §9.1: key/nonce/secret at generation j come from DeriveTreeSecret on secret_j.
        var ratchet = SenderRatchet(suite: suite, secret: secret)
        let key0 = try ratchet.next()
        XCTAssertEqual(key0.key, try suite.deriveTreeSecret(secret: secret, label: "key", generation: 0, length: 16))
        XCTAssertEqual(key0.nonce, try suite.deriveTreeSecret(secret: secret, label: "nonce", generation: 0, length: 12))
        let secret1 = try suite.deriveTreeSecret(secret: secret, label: "secret", generation: 0, length: 32)
        XCTAssertEqual(try ratchet.next().key, try suite.deriveTreeSecret(secret: secret1, label: "key", generation: 1, length: 16))
    }

    func test_invalidLeavesAndTreeSizes_throw() throws {
        var tree = try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 8)
        XCTAssertThrowsError(try tree.next(leaf: 8, type: .application)) { XCTAssertEqual($0 as? ScheduleError, .invalidLeaf(8)) }
        XCTAssertThrowsError(try tree.keyNonce(leaf: .max, type: .handshake, generation: 0))
        XCTAssertThrowsError(try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 0))
        XCTAssertThrowsError(try SecretTree(suite: suite, encryptionSecret: secret, leafCount: 3))
        XCTAssertNoThrow(try tree.next(leaf: 7, type: .application))
    }

    func test_senderData_samplesAtMostNhBytes_andReuseGuardXorsFirstFourBytes() throws {
        let senderDataSecret = [UInt8](repeating: 1, count: 32)
        let long = [UInt8](repeating: 9, count: 100)
        let a = try SenderData.keyAndNonce(suite: suite, senderDataSecret: senderDataSecret, ciphertext: long)
        let b = try SenderData.keyAndNonce(suite: suite, senderDataSecret: senderDataSecret, ciphertext: Array(long.prefix(32)) + [0])
        XCTAssertEqual(a.key, b.key)
        XCTAssertEqual(a.key.count, 16)
        XCTAssertEqual(a.nonce.count, 12)
        let short = try SenderData.keyAndNonce(suite: suite, senderDataSecret: senderDataSecret, ciphertext: [1, 2])
        XCTAssertNotEqual(short.key, a.key)

        let nonce: [UInt8] = [0, 0, 0, 0, 5, 6, 7, 8, 9, 10, 11, 12]
        XCTAssertEqual(try SenderData.applyReuseGuard([1, 2, 3, 4], to: nonce), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        XCTAssertThrowsError(try SenderData.applyReuseGuard([1, 2, 3], to: nonce))
        XCTAssertThrowsError(try SenderData.applyReuseGuard([1, 2, 3, 4], to: [1]))
        XCTAssertEqual(SenderData.makeReuseGuard().count, 4)
    }
}
