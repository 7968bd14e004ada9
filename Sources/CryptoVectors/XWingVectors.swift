import Foundation
import MLS
import MLSVectors
import Primitives

/// X-Wing known answers (xwing-kem 0.2.0 `tests/xwing_kat.json`: the draft's three vectors with the
/// combiner's inputs) and HPKE base mode over X-Wing (cryptography-vectors
/// `HPKE/hpke-pq-test-vectors.json`, the entry with kem 0x647a, kdf 1, aead 3).
enum XWingVectors {
    static let files: [CryptoVectorFile] = [
        CryptoVectorFile(path: "xwing-kem/xwing_kat.json", run: kat),
        CryptoVectorFile(path: "cryptography-vectors/HPKE/hpke-pq-test-vectors.json", run: hpke),
    ]

    static func kat(_ data: Data) throws -> CryptoVectorOutcome {
        var outcome = CryptoVectorOutcome()
        let vectors = try VectorJSON.array(try VectorJSON.document(data), "vectors").compactMap { $0 as? [String: Any] }
        for (index, vector) in vectors.enumerated() {
            outcome.check("vector \(index)") {
                let seed = try VectorJSON.hex(vector, "seed")
                let pk = try XWing.publicKey(privateKey: seed)
                try VectorJSON.expect(pk, try VectorJSON.hex(vector, "expected_pk"), "pk")
                try VectorJSON.expect(Array(pk.suffix(32)), try VectorJSON.hex(vector, "pk_x"), "pk_X")
                let (ss, ct) = try XWing.encapsulate(publicKey: pk, seed: try VectorJSON.hex(vector, "eseed"))
                try VectorJSON.expect(ct, try VectorJSON.hex(vector, "expected_ct"), "ct")
                try VectorJSON.expect(Array(ct.suffix(32)), try VectorJSON.hex(vector, "ct_x"), "ct_X")
                try VectorJSON.expect(ss, try VectorJSON.hex(vector, "expected_ss"), "ss")
                try VectorJSON.expect(try XWing.decapsulate(privateKey: seed, ciphertext: ct), ss, "decapsulated ss")
                // The combiner's inputs, each from its own component.
                let expanded = SHAKE256.hash(seed, count: 96)
                let (_, dkM) = try MLKEM768.keyGen(d: Array(expanded[0..<32]), z: Array(expanded[32..<64]))
                let ssM = try MLKEM768.decapsulate(decapsulationKey: dkM, ciphertext: Array(ct.prefix(MLKEM768.ciphertextSize)))
                try VectorJSON.expect(ssM, try VectorJSON.hex(vector, "ss_m"), "ss_M")
                let ssX = try X25519.sharedSecret(privateKey: Array(expanded[64..<96]), publicKey: Array(ct.suffix(32)))
                try VectorJSON.expect(ssX, try VectorJSON.hex(vector, "ss_x"), "ss_X")
            }
        }
        return outcome
    }

    /// RFC 9180 base mode: the recipient key (whichever DeriveKeyPair the vector used is reported),
    /// Encap with ikmE as X-Wing's 64-byte encapsulation seed, the key schedule, every encryption in
    /// sequence (seal and open) and every export.
    static func hpke(_ data: Data) throws -> CryptoVectorOutcome {
        guard let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw VectorMismatch("not a JSON array")
        }
        let ours = entries.filter {
            ($0["kem_id"] as? Int) == Int(KEM.xwing.rawValue) && ($0["kdf_id"] as? Int) == 1 && ($0["aead_id"] as? Int) == 3
        }
        guard !ours.isEmpty else { throw VectorMismatch("no entry with kem 0x647a, kdf 1, aead 3") }
        var outcome = CryptoVectorOutcome()
        var derivations: [String] = []
        let hpke = HPKE(kem: .xwing, kdf: .sha256, aead: .chacha20Poly1305)
        for (index, vector) in ours.enumerated() {
            outcome.check("kem 0x647a kdf 1 aead 3 #\(index)") {
                guard try VectorJSON.int(vector, "mode") == 0 else { throw VectorMismatch("not base mode") }
                let ikmR = try VectorJSON.hex(vector, "ikmR")
                let skR = try VectorJSON.hex(vector, "skRm")
                let pkR = try VectorJSON.hex(vector, "pkRm")
                let plain = try XWing.deriveKeyPair(ikm: ikmR).privateKey == skR
                let labeled = try XWing.labeledDeriveKeyPair(ikm: ikmR).privateKey == skR
                derivations.append(labeled ? "LabeledDerive (draft-ietf-hpke-pq)" : plain ? "SHAKE256(ikm, 32) (X-Wing draft)" : "neither")
                guard plain || labeled else { throw VectorMismatch("skRm from neither DeriveKeyPair") }
                try VectorJSON.expect(try XWing.publicKey(privateKey: skR), pkR, "pkRm")
                try VectorJSON.expect(hpke.suiteID, try VectorJSON.hex(vector, "suite_id"), "suite_id")

                let (sharedSecret, enc) = try XWing.encapsulate(publicKey: pkR, seed: try VectorJSON.hex(vector, "ikmE"))
                try VectorJSON.expect(enc, try VectorJSON.hex(vector, "enc"), "enc")
                try VectorJSON.expect(sharedSecret, try VectorJSON.hex(vector, "shared_secret"), "shared_secret")
                let info = try VectorJSON.hex(vector, "info")
                var sender = try hpke.keySchedule(sharedSecret: sharedSecret, info: info)
                var receiver = try hpke.setupBaseR(enc: enc, privateKey: skR, info: info)
                for (number, item) in try VectorJSON.array(vector, "encryptions").enumerated() {
                    guard let encryption = item as? [String: Any] else { throw VectorMismatch("encryption \(number)") }
                    let aad = try VectorJSON.hex(encryption, "aad"), pt = try VectorJSON.hex(encryption, "pt")
                    let ct = try VectorJSON.hex(encryption, "ct")
                    try VectorJSON.expect(try sender.seal(aad: aad, plaintext: pt), ct, "encryption \(number) ct")
                    try VectorJSON.expect(try receiver.open(aad: aad, ciphertext: ct), pt, "encryption \(number) pt")
                }
                for (number, item) in try VectorJSON.array(vector, "exports").enumerated() {
                    guard let export = item as? [String: Any] else { throw VectorMismatch("export \(number)") }
                    let value = try receiver.export(exporterContext: try VectorJSON.hex(export, "exporter_context"),
                                                    length: try VectorJSON.int(export, "L"))
                    try VectorJSON.expect(value, try VectorJSON.hex(export, "exported_value"), "export \(number)")
                }
            }
        }
        outcome.note = "recipient key derivation: " + derivations.joined(separator: "; ")
            + "; OpenMLS 0.8 derives node keys with SHAKE256(ikm, 32)"
        return outcome
    }
}
