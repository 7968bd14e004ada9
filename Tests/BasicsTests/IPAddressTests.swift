import Basics
import XCTest

/// IP address text as the per-client limits read it: parsing, masking, and the key a client counts under.
final class IPAddressTests: XCTestCase {
    func test_parsing() throws {
        XCTAssertEqual(IPAddress("192.0.2.33")?.description, "192.0.2.33")
        XCTAssertEqual(IPAddress("192.0.2.33:8080")?.description, "192.0.2.33")
        XCTAssertEqual(IPAddress("::1")?.bytes, [UInt8](repeating: 0, count: 15) + [1])
        XCTAssertEqual(IPAddress("[2001:db8::1]:443"), IPAddress("2001:db8:0:0:0:0:0:1"))
        XCTAssertEqual(IPAddress("::ffff:10.1.2.3"), IPAddress("10.1.2.3"))
        XCTAssertEqual(IPAddress("1:2:3:4:5:6:7:8")?.description, "1:2:3:4:5:6:7:8")
        XCTAssertEqual(IPAddress(ipv4: [192, 0, 2, 33]), IPAddress("192.0.2.33"))
        XCTAssertEqual(IPAddress(ipv4: [192, 0, 2, 33]).isIPv4, true)
        XCTAssertEqual(IPAddress("2001:db8::1")?.isIPv4, false)
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "::1::", "1:2:3:4:5:6:7:8:9",
                    "12345::", "g::1", "[::1", "[::1]x", "unknown", "1.2.3.4:", "1.2.3.4:x", ":::", "1:2:3:4:5:6:7::8:9",
                    "fe80::1%eth0", String(repeating: "1", count: 10_000)] {
            XCTAssertNil(IPAddress(bad), bad)
        }
    }

    func test_masking() throws {
        let address = try XCTUnwrap(IPAddress("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"))
        XCTAssertEqual(address.masked(toPrefix: 64).description, "2001:db8:ffff:ffff:0:0:0:0")
        XCTAssertEqual(address.masked(toPrefix: 60).description, "2001:db8:ffff:fff0:0:0:0:0")
        XCTAssertEqual(address.masked(toPrefix: 0).description, "0:0:0:0:0:0:0:0")
        XCTAssertEqual(address.masked(toPrefix: 128), address)
    }

    /// IPv4 peers count alone, IPv4-mapped ones under their IPv4 address, IPv6 ones by their
    /// network: every address of one /64 shares a key, the next /64 has its own.
    func test_clientKey() {
        XCTAssertEqual(IPAddress.clientKey("192.0.2.7", ipv6Prefix: 64), "192.0.2.7")
        XCTAssertEqual(IPAddress.clientKey("::ffff:192.0.2.7", ipv6Prefix: 64), "192.0.2.7")
        XCTAssertNotEqual(IPAddress.clientKey("192.0.2.8", ipv6Prefix: 64), IPAddress.clientKey("192.0.2.7", ipv6Prefix: 64))
        let network = IPAddress.clientKey("2001:db8:aa:bb::1", ipv6Prefix: 64)
        XCTAssertEqual(network, "2001:db8:aa:bb:0:0:0:0/64")
        for rotated in ["2001:db8:aa:bb:ffff:ffff:ffff:ffff", "2001:db8:aa:bb:1:2:3:4", "[2001:db8:aa:bb::9]:443"] {
            XCTAssertEqual(IPAddress.clientKey(rotated, ipv6Prefix: 64), network, rotated)
        }
        XCTAssertNotEqual(IPAddress.clientKey("2001:db8:aa:bc::1", ipv6Prefix: 64), network)
        XCTAssertEqual(IPAddress.clientKey("2001:db8:aa:bc::1", ipv6Prefix: 48), "2001:db8:aa:0:0:0:0:0/48")
        XCTAssertEqual(IPAddress.clientKey("::1", ipv6Prefix: 64), "0:0:0:0:0:0:0:0/64")
        XCTAssertEqual(IPAddress.clientKey("not an address", ipv6Prefix: 64), "not an address")
    }
}
