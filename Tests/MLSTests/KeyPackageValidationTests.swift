import MLS
import XCTest

/// The service's KeyPackage publication check (MLS.md item 1, RFC 9420 §10.1).
final class KeyPackageValidationTests: XCTestCase {
    let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
    let now: UInt64 = 1_800_000_000
    let day: UInt64 = 86_400

    private func bundle(notBefore: UInt64, notAfter: UInt64) throws -> KeyPackageBundle {
        try GroupFixtures.keyPackage("alice", suite: suite, lifetime: Lifetime(notBefore: notBefore, notAfter: notAfter))
    }

    private func message(_ keyPackage: KeyPackage) -> [UInt8] { MLSMessage(body: .keyPackage(keyPackage)).encoded() }

    func testValidPackageGivesItsRef() throws {
        let kp = try bundle(notBefore: now - day, notAfter: now + 30 * day)
        let (decoded, ref) = try PublicGroup.validateKeyPackage(message(kp.keyPackage), now: now, maxLifetime: 400 * day)
        XCTAssertEqual(decoded, kp.keyPackage)
        XCTAssertEqual(ref, kp.ref)
        XCTAssertEqual(ref.count, 32)
    }

    func testRejections() throws {
        let kp = try bundle(notBefore: now - day, notAfter: now + 30 * day)
        func expect(_ bytes: [UInt8], _ error: KeyPackageError, maxLifetime: UInt64 = 400 * 86_400, at time: UInt64? = nil,
                    line: UInt = #line) {
            XCTAssertThrowsError(try PublicGroup.validateKeyPackage(bytes, now: time ?? now, maxLifetime: maxLifetime), line: line) {
                XCTAssertEqual($0 as? KeyPackageError, error, line: line)
            }
        }
        expect(message(kp.keyPackage), .lifetimeNotValidNow, at: now + 31 * day)
        expect(message(kp.keyPackage), .lifetimeNotValidNow, at: now - 2 * day)
        expect(message(kp.keyPackage), .lifetimeTooLong, maxLifetime: 10 * day)
        var tampered = kp.keyPackage
        tampered.signature[1] ^= 1
        expect(message(tampered), .invalidKeyPackageSignature)
        var leafTampered = kp.keyPackage
        leafTampered.leafNode.signature[1] ^= 1
        expect(message(leafTampered), .invalidLeafNodeSignature)
        var wrongVersion = kp.keyPackage
        wrongVersion.version = ProtocolVersion(rawValue: 2)
        expect(message(wrongVersion), .unsupportedVersion(2))
        expect(MLSMessage(body: .welcome(Welcome(cipherSuite: 1, secrets: [], encryptedGroupInfo: []))).encoded(), .notAKeyPackage)
        XCTAssertThrowsError(try PublicGroup.validateKeyPackage(message(kp.keyPackage), expectedSuite: 2, now: now, maxLifetime: 400 * day)) {
            XCTAssertEqual($0 as? KeyPackageError, .cipherSuiteMismatch(expected: 2, actual: 1))
        }
        let bytes = message(kp.keyPackage)
        for cut in [0, 1, 5, bytes.count / 2, bytes.count - 1] {
            XCTAssertThrowsError(try PublicGroup.validateKeyPackage(Array(bytes.prefix(cut)), now: now, maxLifetime: 400 * day)) {
                guard case .malformed = $0 as? KeyPackageError else { return XCTFail("\($0)") }
            }
        }
        XCTAssertThrowsError(try PublicGroup.validateKeyPackage(bytes + [0], now: now, maxLifetime: 400 * day))
    }
}
