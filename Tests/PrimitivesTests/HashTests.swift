import Primitives
import XCTest

final class HashTests: XCTestCase {
    func test_sha2_matchesFIPS180Examples() throws {
        // FIPS 180-2 Appendix examples for "abc".
        let abc = Array("abc".utf8)
        XCTAssertEqual(HashAlgorithm.sha256.hash(abc), try hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        XCTAssertEqual(HashAlgorithm.sha384.hash(abc), try hex(
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        XCTAssertEqual(HashAlgorithm.sha512.hash(abc), try hex(
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
                + "454d4423643ce80e2a9ac94fa54ca49f"))
        XCTAssertEqual(HashAlgorithm.sha256.hash([]), try hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        for algorithm in HashAlgorithm.allCases {
            XCTAssertEqual(algorithm.hash([1, 2, 3]).count, algorithm.outputSize)
        }
    }

    func test_secureRandom_returnsRequestedCountAndVaries() {
        XCTAssertEqual(SecureRandom.bytes(0), [])
        XCTAssertEqual(SecureRandom.bytes(33).count, 33)
        XCTAssertNotEqual(SecureRandom.bytes(32), SecureRandom.bytes(32))
    }
}
