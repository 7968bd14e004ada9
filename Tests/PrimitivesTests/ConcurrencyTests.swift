import Dispatch
import Foundation
import Primitives
import XCTest

/// Shared OpenSSL objects (fetched digests, HMAC templates, EC groups, keys) are used from many
/// threads at once; results must match the single-threaded ones.
final class ConcurrencyTests: XCTestCase {
    func test_sharedKeysAndTemplates_workConcurrently() throws {
        let key = try ECDSAPrivateKey.generate(curve: .p256)
        let message = Array("concurrent".utf8)
        let expectedMAC = try HMAC.authenticationCode(for: message, key: [1, 2, 3], hash: .sha384)
        let aeadKey = SecureRandom.bytes(16)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            do {
                let signature = try key.signature(for: message + [UInt8(index)], hash: .sha256)
                let mac = try HMAC.authenticationCode(for: message, key: [1, 2, 3], hash: .sha384)
                let nonce = [UInt8](repeating: UInt8(index), count: 12)
                let sealed = try AEADAlgorithm.aes128GCM.seal(key: aeadKey, nonce: nonce, plaintext: message, authenticating: [])
                let opened = try AEADAlgorithm.aes128GCM.open(key: aeadKey, nonce: nonce, ciphertext: sealed, authenticating: [])
                if !key.publicKey.isValidSignature(der: signature.der, for: message + [UInt8(index)], hash: .sha256)
                    || mac != expectedMAC || opened != message {
                    failures.add()
                }
            } catch {
                failures.add()
            }
        }
        XCTAssertEqual(failures.count, 0)
    }
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
