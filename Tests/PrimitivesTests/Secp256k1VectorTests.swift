@testable import Primitives
import XCTest

/// Published vectors: Wycheproof ecdsa_secp256k1_sha256_p1363_test.json (C2SP/wycheproof, testvectors_v1),
/// and the secp256k1 private key from AUTH.md's "Known spec test data".
final class Secp256k1VectorTests: XCTestCase {
    private struct Vector {
        let id: Int
        let key: String
        let signature: String
        let valid: Bool
    }

    private static let groupOneKey = "04b838ff44e5bc177bf21189d0766082fc9d843226887fc9760371100b7ee20a6ff0c9d75bfba7b31a6bca1974496eeb56de357071955d83c4b1badaa0b21832e9"

    private static let vectors: [Vector] = [
        // Signature malleability: a high-S signature, valid.
        Vector(id: 1, key: groupOneKey, signature: "813ef79ccefa9a56f7ba805f0e478584fe5f0dd5f567bc09b5123ccbc9832365900e75ad233fcc908509dbff5922647db37c21f4afd3203ae8dc4ae7794b0f87", valid: true),
        // r replaced by r + n (33 bytes).
        Vector(id: 2, key: groupOneKey, signature: "01813ef79ccefa9a56f7ba805f0e478583b90deabca4b05c4574e49b5899b964a6006ff18a52dcc0336f7af62400a6dd9b810732baf1ff758000d6f613a556eb31ba", valid: false),
        // r replaced by n − r.
        Vector(id: 4, key: groupOneKey, signature: "7ec10863310565a908457fa0f1b87a79bc4fcf10b9e0e4320ac021c106b31ddc6ff18a52dcc0336f7af62400a6dd9b810732baf1ff758000d6f613a556eb31ba", valid: false),
        // r = 0, s = n.
        Vector(id: 13, key: groupOneKey, signature: "0000000000000000000000000000000000000000000000000000000000000000fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", valid: false),
        // r = 1, s = n − 1.
        Vector(id: 21, key: groupOneKey, signature: "0000000000000000000000000000000000000000000000000000000000000001fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140", valid: false),
        // Edge case modular inverse.
        Vector(id: 153, key: "044280509aab64edfc0b4a2967e4cbce849cb544e4a77313c8e6ece579fbd7420a2e89fe5cc1927d554e6a3bb14033ea7c922cd75cba2c7415fdab52f20b1860f1", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215c1091a08870ff4daf9123b30c20e8c4fc8505758dcf4074fcaff2170c9bfcf74f4", valid: true),
        // u1 == 1.
        Vector(id: 168, key: "04feb5163b0ece30ff3e03c7d55c4380fa2fa81ee2c0354942ff6f08c99d0cd82ce87de05ee1bda089d3e4e248fa0f721102acfffdf50e654be281433999df897e", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215b8bb5a52f42f9c9261ed4361f59422a1e30036e7c32b270c8807a419feca605023", valid: true),
        // u1 == n − 1.
        Vector(id: 169, key: "04238ced001cf22b8853e02edc89cbeca5050ba7e042a7a77f9382cd414922897640683d3094643840f295890aa4c18aa39b41d77dd0fb3bb2700e4f9ec284ffc2", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215b844a5ad0bd0636d9e12bc9e0a6bdd5e1bba77f523842193b3b82e448e05d5f11e", valid: true),
        // u2 == 1.
        Vector(id: 170, key: "04961cf64817c06c0e51b3c2736c922fde18bd8c4906fcd7f5ef66c4678508f35ed2c5d18168cfbe70f2f123bd7419232bb92dd69113e2941061889481c5a027bf", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215b855555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215b8", valid: true),
        // u2 == n − 1.
        Vector(id: 171, key: "0413681eae168cd4ea7cf2e2a45d052742d10a9f64e796867dbdcb829fe0b1028816528760d177376c09df79de39557c329cc1753517acffe8fa2ec298026b8384", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215b8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9d1c9e899ca306ad27fe1945de0242b89", valid: true),
        // Edge cases for u1.
        Vector(id: 172, key: "045aa7abfdb6b4086d543325e5d79c6e95ce42f866d2bb84909633a04bb1aa31c291c80088794905e1da33336d874e2f91ccf45cc59185bede5dd6f3f7acaae18b", signature: "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffce91e1ba6ba898620a46bcb51dc0b8b4ad1dc35dad892c4552d1847b2ce444637", valid: true),
        Vector(id: 173, key: "0400277791b305a45b2b39590b2f05d3392a6c8182cef4eb540120e0f5c206c3e464108233fb0b8c3ac892d79ef8e0fbf92ed133addb4554270132584dc52eef41", signature: "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffce36bf0cec06d9b841da81332812f74f30bbaec9f202319206c6f0b8a0a400ff7", valid: true),
        // Edge cases for u2.
        Vector(id: 197, key: "0460e734ef5624d3cbf0ddd375011bd663d6d6aebc644eb599fdf98dbdcd18ce9bd2d90b3ac31f139af832cccf6ccbbb2c6ea11fa97370dc9906da474d7d8a7567", signature: "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc6492492492492492492492492492492406dd3a19b8d5fb875235963c593bd2d3", valid: true),
        Vector(id: 200, key: "0498f68177dc95c1b4cbfa5245488ca523a7d5629470d035d621a443c72f39aabfa33d29546fa1c648f2c7d5ccf70cf1ce4ab79b5db1ac059dbecd068dbdff1b89", signature: "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffcbffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364143", valid: true),
        // Point duplication during verification, and the same signature against −Q.
        Vector(id: 202, key: "042ea7133432339c69d27f9b267281bd2ddd5f19d6338d400a05cd3647b157a3853547808298448edb5e701ade84cd5fb1ac9567ba5e8fb68a6b933ec4b5cc84cc", signature: "32b0d10d8d0e04bc8d4d064d270699e87cffc9b49c5c20730e1c26f6105ddcdad612c2984c2afa416aa7f2882a486d4a8426cb6cfc91ed5b737278f9fca8be68", valid: true),
        Vector(id: 203, key: "042ea7133432339c69d27f9b267281bd2ddd5f19d6338d400a05cd3647b157a385cab87f7d67bb7124a18fe5217b32a04e536a9845a1704975946cc13a4a337763", signature: "32b0d10d8d0e04bc8d4d064d270699e87cffc9b49c5c20730e1c26f6105ddcdad612c2984c2afa416aa7f2882a486d4a8426cb6cfc91ed5b737278f9fca8be68", valid: false),
        // Comparison with the point at infinity.
        Vector(id: 204, key: "048aa2c64fa9c6437563abfbcbd00b2048d48c18c152a2a6f49036de7647ebe82e1ce64387995c68a060fa3bc0399b05cc06eec7d598f75041a4917e692b7f51ff", signature: "55555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215c033333333333333333333333333333332f222f8faefdb533f265d461c29a47373", valid: false),
        // Extreme value for k and an edge-case s.
        Vector(id: 205, key: "04391427ff7ee78013c14aec7d96a8a062209298a783835e94fd6549d502fff71fdd6624ec343ad9fcf4d9872181e59f842f9ba4cccae09a6c0972fb6ac6b4c6bd", signature: "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee555555555555555555555555555555554e8e4f44ce51835693ff0ca2ef01215c0", valid: true),
    ]

    func test_wycheproofVectors_nativeAndOpenSSLAgreeWithTheExpectedResult() throws {
        // Every vector in this file signs the message "123400".
        let message = try hex("313233343030")
        for vector in Self.vectors {
            let key = try ECDSAPublicKey(curve: .secp256k1, sec1: try hex(vector.key))
            let signature = try hex(vector.signature)
            XCTAssertEqual(key.isValidSignature(raw: signature, for: message, hash: .sha256), vector.valid, "tcId \(vector.id) native")
            XCTAssertEqual(key.openSSLIsValidSignature(raw: signature, for: message, hash: .sha256), vector.valid, "tcId \(vector.id) OpenSSL")
            if signature.count == 64, let der = try? ECDSA.der(fromRaw: signature, curve: .secp256k1) {
                XCTAssertEqual(key.isValidSignature(der: der, for: message, hash: .sha256), vector.valid, "tcId \(vector.id) DER")
            }
        }
    }

    func test_authSpecPrivateKey_signsAndVerifies_andDecompresses() throws {
        let scalar = try hex("9085d2bef69286a6cbb51623c8fa258629945cd55ca705cc4e66700396894e0c")
        let key = try ECDSAPrivateKey(curve: .secp256k1, scalar: scalar)
        let point = try XCTUnwrap(Secp256k1.AffinePoint(sec1: key.publicKey.compressed))
        XCTAssertEqual(point.sec1(compressed: false), key.publicKey.uncompressed)
        let message = Array("eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NksifQ.e30".utf8)
        for _ in 0..<20 {
            let signature = try key.signature(for: message, hash: .sha256)
            XCTAssertTrue(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: .sha256))
        }
    }
}
