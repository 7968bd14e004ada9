import Foundation
import MLSVectors
import Primitives

/// ML-KEM-768 known answers: NIST's ACVP keyGen and encapDecap sets (kyber-py 1.2.0 `assets/`), and
/// the 1,000-record `kat_MLKEM_768.rsp` (cryptography-vectors `asymmetric/MLKEM/`), whose records
/// also decapsulate a malformed ciphertext (ct_n) to the implicit-rejection secret (ss_n).
enum MLKEMVectors {
    static let files: [CryptoVectorFile] = [
        CryptoVectorFile(path: "kyber-py/ML-KEM-keyGen-FIPS203/internalProjection.json", run: acvpKeyGen),
        CryptoVectorFile(path: "kyber-py/ML-KEM-encapDecap-FIPS203/internalProjection.json", run: acvpEncapDecap),
        CryptoVectorFile(path: "cryptography-vectors/asymmetric/MLKEM/kat_MLKEM_768.rsp", run: kat),
    ]

    /// The ML-KEM-768 groups of an ACVP file; the others (ML-KEM-512, -1024) are counted in the note.
    static func groups(_ document: [String: Any], outcome: inout CryptoVectorOutcome) throws -> [[String: Any]] {
        let all = try VectorJSON.array(document, "testGroups").compactMap { $0 as? [String: Any] }
        let ours = all.filter { $0["parameterSet"] as? String == "ML-KEM-768" }
        let others = all.filter { $0["parameterSet"] as? String != "ML-KEM-768" }
            .reduce(0) { $0 + (($1["tests"] as? [Any])?.count ?? 0) }
        guard !ours.isEmpty else { throw VectorMismatch("no ML-KEM-768 group") }
        outcome.note = "ML-KEM-768 groups; \(others) ML-KEM-512/1024 cases not applicable"
        return ours
    }

    static func tests(_ group: [String: Any]) throws -> [[String: Any]] {
        try VectorJSON.array(group, "tests").compactMap { $0 as? [String: Any] }
    }

    static func acvpKeyGen(_ data: Data) throws -> CryptoVectorOutcome {
        var outcome = CryptoVectorOutcome()
        for group in try groups(try VectorJSON.document(data), outcome: &outcome) {
            for test in try tests(group) {
                outcome.check("tcId \(test["tcId"] ?? "?")") {
                    let (ek, dk) = try MLKEM768.keyGen(d: try VectorJSON.hex(test, "d"), z: try VectorJSON.hex(test, "z"))
                    try VectorJSON.expect(ek, try VectorJSON.hex(test, "ek"), "ek")
                    try VectorJSON.expect(dk, try VectorJSON.hex(test, "dk"), "dk")
                    guard MLKEM768.isValidEncapsulationKey(ek), MLKEM768.isValidDecapsulationKey(dk) else {
                        throw VectorMismatch("generated keys fail the §7.2/§7.3 checks")
                    }
                }
            }
        }
        return outcome
    }

    /// Encapsulation (AFT: ek, m → c, k) and decapsulation (VAL: the group's dk, c → k, including
    /// modified ciphertexts that must give the implicit-rejection key).
    static func acvpEncapDecap(_ data: Data) throws -> CryptoVectorOutcome {
        var outcome = CryptoVectorOutcome()
        for group in try groups(try VectorJSON.document(data), outcome: &outcome) {
            let function = try VectorJSON.string(group, "function")
            for test in try tests(group) {
                outcome.check("tcId \(test["tcId"] ?? "?") (\(function))") {
                    switch function {
                    case "encapsulation":
                        let (k, c) = try MLKEM768.encapsulate(
                            encapsulationKey: try VectorJSON.hex(test, "ek"), randomness: try VectorJSON.hex(test, "m"))
                        try VectorJSON.expect(c, try VectorJSON.hex(test, "c"), "c")
                        try VectorJSON.expect(k, try VectorJSON.hex(test, "k"), "k")
                        let dk = try VectorJSON.hex(test, "dk")
                        try VectorJSON.expect(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: c), k, "decapsulated k")
                    case "decapsulation":
                        let k = try MLKEM768.decapsulate(decapsulationKey: try VectorJSON.hex(group, "dk"), ciphertext: try VectorJSON.hex(test, "c"))
                        try VectorJSON.expect(k, try VectorJSON.hex(test, "k"), "k")
                    default:
                        throw VectorMismatch("unknown function \(function)")
                    }
                }
            }
        }
        return outcome
    }

    static func kat(_ data: Data) throws -> CryptoVectorOutcome {
        var outcome = CryptoVectorOutcome()
        for record in try RSPFile(data).records where record.fields["ss"] != nil {
            outcome.check("count \(record.fields["count"] ?? "?")") {
                let (ek, dk) = try MLKEM768.keyGen(d: try record.hex("d"), z: try record.hex("z"))
                try VectorJSON.expect(ek, try record.hex("pk"), "pk")
                try VectorJSON.expect(dk, try record.hex("sk"), "sk")
                let (ss, ct) = try MLKEM768.encapsulate(encapsulationKey: ek, randomness: try record.hex("msg"))
                try VectorJSON.expect(ct, try record.hex("ct"), "ct")
                try VectorJSON.expect(ss, try record.hex("ss"), "ss")
                try VectorJSON.expect(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: ct), ss, "decapsulated ss")
                // ct_n is not a valid encapsulation: implicit rejection gives J(z‖ct_n).
                let rejected = try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: try record.hex("ct_n"))
                try VectorJSON.expect(rejected, try record.hex("ss_n"), "ss_n (implicit rejection)")
            }
        }
        return outcome
    }
}
