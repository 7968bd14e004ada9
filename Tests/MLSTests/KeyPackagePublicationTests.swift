import MLS
import XCTest

/// KeyPackages published as an MLSMessage(KeyPackage) or as the bare struct (OpenMLS clients).
final class KeyPackagePublicationTests: XCTestCase {
    let now: UInt64 = 1_800_000_000
    let day: UInt64 = 86_400

    private func bundle(_ suite: CipherSuite) throws -> KeyPackageBundle {
        try GroupFixtures.keyPackage("alice", suite: suite, lifetime: Lifetime(notBefore: now - day, notAfter: now + 30 * day))
    }

    /// Both forms in every suite, suite 5 included (the one whose id equals wire_format
    /// mls_key_package): the same package, the same ref, the form reported, through the service's
    /// entry points too.
    func testBothFormsEverySuite() throws {
        for suite in CipherSuite.allCases {
            let kp = try bundle(suite).keyPackage
            let wrapped = MLSMessage(body: .keyPackage(kp)).encoded()
            let bare = kp.encoded()
            let fromWrapped = try KeyPackage.validated(published: wrapped, now: now, maxLifetime: 400 * day)
            let fromBare = try KeyPackage.validated(published: bare, now: now, maxLifetime: 400 * day)
            XCTAssertEqual(fromWrapped.encoding, .mlsMessage, "\(suite)")
            XCTAssertEqual(fromBare.encoding, .bare, "\(suite)")
            XCTAssertEqual(fromWrapped.keyPackage, kp)
            XCTAssertEqual(fromBare.keyPackage, kp)
            XCTAssertEqual(fromWrapped.ref, kp.reference(suite: suite))
            XCTAssertEqual(fromBare.ref, fromWrapped.ref)
            let service = try PublicGroup.validateKeyPackage(bare, expectedSuite: suite.rawValue, now: now, maxLifetime: 400 * day)
            XCTAssertEqual(service.ref, fromWrapped.ref)
            XCTAssertThrowsError(try KeyPackage.validated(published: bare, expectedSuite: suite.rawValue % 7 + 1, now: now,
                                                          maxLifetime: 400 * day)) {
                guard case .cipherSuiteMismatch = $0 as? KeyPackageError else { return XCTFail("\($0)") }
            }
        }
    }

    /// The suite-5 overlap, byte by byte: a bare package opens with 0001 0005 like an MLSMessage,
    /// then with its init_key length 0x4085; an MLSMessage then has the KeyPackage version 0001.
    func testSuite5BytesAreTold() throws {
        let kp = try bundle(.mls256DHKEMP521AES256GCMSHA512P521).keyPackage
        let bare = kp.encoded()
        let wrapped = MLSMessage(body: .keyPackage(kp)).encoded()
        XCTAssertEqual(Array(bare.prefix(6)), [0x00, 0x01, 0x00, 0x05, 0x40, 0x85])
        XCTAssertEqual(Array(wrapped.prefix(6)), [0x00, 0x01, 0x00, 0x05, 0x00, 0x01])
        XCTAssertEqual(try KeyPackage.decodePublished(bare).encoding, .bare)
        XCTAssertEqual(try KeyPackage.decodePublished(wrapped).encoding, .mlsMessage)
        // A wrapped package of another version is still read as an MLSMessage and refused for its version.
        var other = kp
        other.version = ProtocolVersion(rawValue: 2)
        XCTAssertThrowsError(try KeyPackage.validated(published: MLSMessage(body: .keyPackage(other)).encoded(), now: now,
                                                      maxLifetime: 400 * day)) {
            XCTAssertEqual($0 as? KeyPackageError, .unsupportedVersion(2))
        }
        // A bare suite-5 package whose init_key length bytes were changed is no KeyPackage in either form.
        var misread = bare
        misread[4] = 0x00
        misread[5] = 0x01
        XCTAssertThrowsError(try KeyPackage.decodePublished(misread)) {
            guard case .malformed = $0 as? KeyPackageError else { return XCTFail("\($0)") }
        }
    }

    func testMalformedBareBytes() throws {
        let kp = try bundle(.mls128DHKEMX25519AES128GCMSHA256Ed25519).keyPackage
        let bare = kp.encoded()
        for cut in [0, 1, 2, 4, 6, bare.count / 2, bare.count - 1] {
            XCTAssertThrowsError(try KeyPackage.decodePublished(Array(bare.prefix(cut))), "cut \(cut)") {
                guard case .malformed = $0 as? KeyPackageError else { return XCTFail("\($0)") }
            }
        }
        XCTAssertThrowsError(try KeyPackage.decodePublished(bare + [0])) {
            guard case .malformed(.trailingBytes(1)) = $0 as? KeyPackageError else { return XCTFail("\($0)") }
        }
        // Other MLSMessages are named as such.
        let welcome = MLSMessage(body: .welcome(Welcome(cipherSuite: 1, secrets: [], encryptedGroupInfo: []))).encoded()
        XCTAssertThrowsError(try KeyPackage.decodePublished(welcome)) { XCTAssertEqual($0 as? KeyPackageError, .notAKeyPackage) }
        // A bare package with a bad signature is refused as such.
        var tampered = kp
        tampered.signature[0] ^= 1
        XCTAssertThrowsError(try KeyPackage.validated(published: tampered.encoded(), now: now, maxLifetime: 400 * day)) {
            XCTAssertEqual($0 as? KeyPackageError, .invalidKeyPackageSignature)
        }
        // A bare package of an unknown suite.
        var unknown = kp
        unknown.cipherSuite = 0x0a0a
        XCTAssertThrowsError(try KeyPackage.validated(published: unknown.encoded(), now: now, maxLifetime: 400 * day)) {
            XCTAssertEqual($0 as? KeyPackageError, .unsupportedCipherSuite(0x0a0a))
        }
    }
}
