import XCTest
@testable import HTTP

final class HTTPClientAddressTests: XCTestCase {
    private func v4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> HTTPClientAddress { .v4(a << 24 | b << 16 | c << 8 | d) }

    private func v6(_ text: String) -> HTTPClientAddress {
        // Expands "::" for the handful of literals below.
        let halves = text.components(separatedBy: "::")
        let head = halves[0].split(separator: ":").map { UInt16($0, radix: 16)! }
        let tail = halves.count > 1 ? halves[1].split(separator: ":").map { UInt16($0, radix: 16)! } : []
        let groups = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        return .v6(groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }

    func testBlockedIPv4() {
        for address in [v4(127, 0, 0, 1), v4(127, 255, 0, 9), v4(10, 1, 2, 3), v4(172, 16, 0, 1), v4(172, 31, 255, 255),
                        v4(192, 168, 1, 1), v4(169, 254, 169, 254), v4(0, 0, 0, 0), v4(100, 64, 0, 1), v4(100, 127, 255, 255),
                        v4(224, 0, 0, 1), v4(255, 255, 255, 255), v4(198, 18, 0, 1), v4(192, 0, 2, 5)] {
            XCTAssertFalse(address.isPubliclyRoutable, "\(address)")
        }
    }

    func testPublicIPv4() {
        for address in [v4(8, 8, 8, 8), v4(1, 1, 1, 1), v4(172, 32, 0, 1), v4(172, 15, 255, 255), v4(100, 128, 0, 1),
                        v4(192, 169, 0, 1), v4(11, 0, 0, 1), v4(169, 253, 0, 1)] {
            XCTAssertTrue(address.isPubliclyRoutable, "\(address)")
        }
    }

    func testIPv6() {
        for blocked in ["::", "::1", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1",
                        "::ffff:7f00:1", "::ffff:a00:1", "64:ff9b::a9fe:a9fe", "2002:c0a8:101::1", "fec0::1", "::7f00:1",
                        "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"] {
            XCTAssertFalse(v6(blocked).isPubliclyRoutable, blocked)
        }
        for open in ["2606:4700::1111", "2a00:1450:4001::200e", "::ffff:808:808", "64:ff9b::808:808", "2002:808:808::1"] {
            XCTAssertTrue(v6(open).isPubliclyRoutable, open)
        }
    }
}
