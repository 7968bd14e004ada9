import MLS
import XCTest

/// RFC 9420 §17.1 names: one table, read both ways.
final class CipherSuiteNameTests: XCTestCase {
    func testEverySuiteRoundTripsByNameAndId() {
        XCTAssertEqual(CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519.name, "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519")
        XCTAssertEqual(CipherSuite.mls256DHKEMP384AES256GCMSHA384P384.name, "MLS_256_DHKEMP384_AES256GCM_SHA384_P384")
        for suite in CipherSuite.allCases {
            XCTAssertTrue(suite.name.hasPrefix("MLS_"), suite.name)
            XCTAssertEqual(CipherSuite(name: suite.name), suite)
            XCTAssertEqual(CipherSuite(name: String(suite.rawValue)), suite)
        }
        XCTAssertEqual(Set(CipherSuite.allCases.map(\.name)).count, CipherSuite.allCases.count)
    }

    func testUnknownNamesAreRefused() {
        for text in ["", "0", "8", "65535", "mls_128_dhkemx25519_aes128gcm_sha256_ed25519", "MLS_128", "1.0", " 1"] {
            XCTAssertNil(CipherSuite(name: text), text)
        }
    }
}
