import Basics
import XCTest
@testable import HTTP

/// The SSRF policy of DID resolution's HTTP client: which resolved addresses it may connect to.
final class PublicRoutabilityTests: XCTestCase {
    private func address(_ text: String) -> IPAddress {
        guard let address = IPAddress(text) else { preconditionFailure("not an address: \(text)") }
        return address
    }

    func testBlockedIPv4() {
        for text in ["127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                     "0.0.0.0", "100.64.0.1", "100.127.255.255", "224.0.0.1", "255.255.255.255", "198.18.0.1", "192.0.2.5"] {
            XCTAssertFalse(address(text).isPubliclyRoutable, text)
        }
    }

    func testPublicIPv4() {
        for text in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1", "11.0.0.1", "169.253.0.1"] {
            XCTAssertTrue(address(text).isPubliclyRoutable, text)
        }
    }

    func testIPv6() {
        for blocked in ["::", "::1", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1",
                        "::ffff:7f00:1", "::ffff:a00:1", "64:ff9b::a9fe:a9fe", "2002:c0a8:101::1", "fec0::1", "::7f00:1",
                        "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "2001::1", "100::1"] {
            XCTAssertFalse(address(blocked).isPubliclyRoutable, blocked)
        }
        for open in ["2606:4700::1111", "2a00:1450:4001::200e", "::ffff:808:808", "64:ff9b::808:808", "2002:808:808::1"] {
            XCTAssertTrue(address(open).isPubliclyRoutable, open)
        }
    }
}
