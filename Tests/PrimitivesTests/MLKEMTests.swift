import Primitives
import XCTest

/// ML-KEM-768 behaviour the known-answer files (run by `crypto-vectors`) do not spell out: the input
/// checks of FIPS 203 §7.2/§7.3, implicit rejection of every kind of tampering, wrong sizes.
final class MLKEMTests: XCTestCase {
    func keyPair() throws -> (ek: [UInt8], dk: [UInt8]) {
        let (ek, dk) = try MLKEM768.keyGen(d: SecureRandom.bytes(32), z: SecureRandom.bytes(32))
        return (ek, dk)
    }

    func test_roundTrip_andSizes() throws {
        let (ek, dk) = try keyPair()
        XCTAssertEqual(ek.count, 1184)
        XCTAssertEqual(dk.count, 2400)
        let (ss, ct) = try MLKEM768.encapsulate(encapsulationKey: ek)
        XCTAssertEqual(ct.count, 1088)
        XCTAssertEqual(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: ct), ss)
        XCTAssertNotEqual(try MLKEM768.encapsulate(encapsulationKey: ek).sharedSecret, ss)
    }

    /// §7.2: a coefficient ≥ q in ek (here 4095 = 0xFFF in the first 12 bits) is refused.
    func test_encapsulationKeyCheck_refusesUnreducedCoefficientAndWrongSize() throws {
        let (ek, _) = try keyPair()
        XCTAssertTrue(MLKEM768.isValidEncapsulationKey(ek))
        var unreduced = ek
        unreduced[0] = 0xFF
        unreduced[1] |= 0x0F
        XCTAssertFalse(MLKEM768.isValidEncapsulationKey(unreduced))
        XCTAssertThrowsError(try MLKEM768.encapsulate(encapsulationKey: unreduced, randomness: [UInt8](repeating: 1, count: 32)))
        // The value q itself (0xD01) is also out of range; q − 1 (0xD00) is in range.
        var atQ = ek
        atQ[0] = 0x01
        atQ[1] = (atQ[1] & 0xF0) | 0x0D
        XCTAssertFalse(MLKEM768.isValidEncapsulationKey(atQ))
        atQ[0] = 0x00
        XCTAssertTrue(MLKEM768.isValidEncapsulationKey(atQ))
        for size in [0, 1183, 1185] {
            XCTAssertThrowsError(try MLKEM768.encapsulate(encapsulationKey: Array(repeating: 0, count: size), randomness: Array(repeating: 1, count: 32)))
        }
        XCTAssertThrowsError(try MLKEM768.encapsulate(encapsulationKey: ek, randomness: Array(repeating: 1, count: 31)))
    }

    /// §7.3: dk's embedded H(ek) must match its ek; sizes are exact.
    func test_decapsulationKeyCheck_refusesTamperedHashAndWrongSize() throws {
        let (ek, dk) = try keyPair()
        let (_, ct) = try MLKEM768.encapsulate(encapsulationKey: ek)
        XCTAssertTrue(MLKEM768.isValidDecapsulationKey(dk))
        for index in [1152, 1152 + 1183, 2336, 2367] {  // inside ek, and inside H(ek)
            var tampered = dk
            tampered[index] ^= 1
            XCTAssertFalse(MLKEM768.isValidDecapsulationKey(tampered), "byte \(index)")
            XCTAssertThrowsError(try MLKEM768.decapsulate(decapsulationKey: tampered, ciphertext: ct))
        }
        XCTAssertThrowsError(try MLKEM768.decapsulate(decapsulationKey: Array(dk.dropLast()), ciphertext: ct))
        XCTAssertThrowsError(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: Array(ct.dropLast())))
        XCTAssertThrowsError(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: ct + [0]))
    }

    /// Any change to the ciphertext (in u, in v, or all of it) decapsulates to K̄ = J(z‖c) =
    /// SHAKE256(z‖c, 32), computed here independently from z (dk's last 32 bytes).
    func test_tamperedCiphertexts_giveTheImplicitRejectionSecret() throws {
        let (ek, dk) = try keyPair()
        let (ss, ct) = try MLKEM768.encapsulate(encapsulationKey: ek)
        let z = Array(dk.suffix(32))
        var variants: [[UInt8]] = []
        for index in [0, 500, 959, 960, 1087] {
            var c = ct
            c[index] ^= 0x01
            variants.append(c)
        }
        variants.append([UInt8](repeating: 0, count: 1088))
        variants.append([UInt8](repeating: 0xFF, count: 1088))
        variants.append(SecureRandom.bytes(1088))
        for (number, c) in variants.enumerated() {
            let result = try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: c)
            XCTAssertNotEqual(result, ss, "variant \(number)")
            XCTAssertEqual(result, SHAKE256.hash(z, c, count: 32), "variant \(number)")
        }
    }
}
