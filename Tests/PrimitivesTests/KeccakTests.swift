import Primitives
import XCTest

/// The native Keccak against OpenSSL's EVP (the CAVP files run in `crypto-vectors`), across every
/// length around the rate boundaries, and squeezing in pieces against one long squeeze.
final class KeccakTests: XCTestCase {
    func test_sha3_matchesFIPS202Examples() throws {
        XCTAssertEqual(SHA3.sha256([]), try hex("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"))
        XCTAssertEqual(SHA3.sha512(Array("abc".utf8)), try hex(
            "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"))
        XCTAssertEqual(SHAKE128.hash([], count: 32), try hex("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"))
    }

    func test_native_matchesOpenSSL_acrossRateBoundaries() {
        let data = SecureRandom.bytes(700)
        for length in Array(0...300) + [335, 336, 337, 407, 408, 409, 543, 544, 545, 700] {
            let message = Array(data.prefix(length))
            XCTAssertEqual(SHA3.sha256(message), OpenSSLSHA3.hash(.sha3_256, message), "SHA3-256 of \(length) bytes")
            XCTAssertEqual(SHA3.sha512(message), OpenSSLSHA3.hash(.sha3_512, message), "SHA3-512 of \(length) bytes")
            XCTAssertEqual(SHAKE128.hash(message, count: 200), OpenSSLSHA3.hash(.shake128, message, count: 200), "SHAKE128 \(length)")
            XCTAssertEqual(SHAKE256.hash(message, count: 300), OpenSSLSHA3.hash(.shake256, message, count: 300), "SHAKE256 \(length)")
        }
    }

    func test_absorbAndSqueezeInPieces_matchOneShot() {
        let message = SecureRandom.bytes(1000)
        let expected = OpenSSLSHA3.hash(.shake128, message, count: 1000)
        for step in [1, 7, 8, 13, 168, 169] {
            var xof = SHAKE128()
            var offset = 0
            while offset < message.count {
                xof.absorb(Array(message[offset..<min(message.count, offset + step)]))
                offset += step
            }
            var output: [UInt8] = []
            while output.count < 1000 { output += xof.squeeze(min(step, 1000 - output.count)) }
            XCTAssertEqual(output, expected, "pieces of \(step)")
        }
        XCTAssertEqual(SHAKE256.hash(Array(message[..<10]), Array(message[10...]), count: 64), OpenSSLSHA3.hash(.shake256, message, count: 64))
        XCTAssertEqual(SHA3.sha256(Array(message[..<500]), Array(message[500...])), OpenSSLSHA3.hash(.sha3_256, message))
    }
}
