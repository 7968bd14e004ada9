import XCTest
@testable import MQTT

final class PropertiesTests: XCTestCase {
    /// One valid encoded value of each property.
    private func sampleValue(_ id: PropertyIdentifier) -> [UInt8] {
        switch id.dataType {
        case .byte: [0x01]
        case .twoByteInteger: [0x00, 0x05]
        case .fourByteInteger: [0x00, 0x00, 0x01, 0x00]
        case .variableByteInteger: [0x81, 0x01]
        case .string: [0x00, 0x02, 0x68, 0x69]
        case .binary: [0x00, 0x01, 0xFF]
        case .stringPair: [0x00, 0x01, 0x6B, 0x00, 0x01, 0x76]
        }
    }

    private func decode(_ entries: [UInt8], _ context: PropertyContext) throws -> Properties {
        var w = MQTTWriter()
        w.writeVariableByteInteger(entries.count)
        w.writeBytes(entries)
        var r = MQTTReader(w.bytes)
        let properties = try Properties.decode(from: &r, context: context)
        try r.finish("test")
        return properties
    }

    func testEveryProperty_InEveryContext_AllowedOrMalformed() throws {
        // MQTT 5.0 §2.2.2.2 Table 2-4: allowed where listed; elsewhere a Malformed Packet.
        for id in PropertyIdentifier.allCases {
            for context in PropertyContext.allCases {
                let entry = [id.rawValue] + sampleValue(id)
                if id.allowedIn.contains(context) {
                    let properties = try decode(entry, context)
                    XCTAssertEqual(properties.identifiers, [id], "\(id) in \(context)")
                    // And back: encoding gives the same bytes.
                    var w = MQTTWriter()
                    properties.encode(into: &w, context: context)
                    XCTAssertEqual(w.bytes, [UInt8(entry.count)] + entry, "\(id)")
                } else {
                    XCTAssertThrowsError(try decode(entry, context), "\(id) in \(context)") {
                        XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket)
                    }
                }
            }
        }
    }

    func testTableSpotChecks() {
        XCTAssertEqual(PropertyIdentifier.allCases.count, 27)
        XCTAssertEqual(PropertyIdentifier.topicAlias.allowedIn, [.publish])
        XCTAssertEqual(PropertyIdentifier.willDelayInterval.allowedIn, [.will])
        XCTAssertEqual(PropertyIdentifier.subscriptionIdentifier.allowedIn, [.publish, .subscribe])
        XCTAssertFalse(PropertyIdentifier.reasonString.allowedIn.contains(.publish))
        XCTAssertEqual(PropertyIdentifier.userProperty.allowedIn.count, PropertyContext.allCases.count)
    }

    func testDuplicates_AreProtocolErrors_ExceptUserPropertyAndPublishSubscriptionIdentifier() throws {
        for id in PropertyIdentifier.allCases {
            for context in id.allowedIn {
                let entry = [id.rawValue] + sampleValue(id)
                if id.mayRepeat(in: context) {
                    let properties = try decode(entry + entry, context)
                    if id == .userProperty { XCTAssertEqual(properties.userProperties.count, 2) }
                    else { XCTAssertEqual(properties.subscriptionIdentifiers, [129, 129]) }
                } else {
                    XCTAssertThrowsError(try decode(entry + entry, context), "\(id) twice in \(context)") {
                        XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .protocolError)
                    }
                }
            }
        }
        // In SUBSCRIBE the Subscription Identifier may appear once (§3.8.2.1.2).
        XCTAssertFalse(PropertyIdentifier.subscriptionIdentifier.mayRepeat(in: .subscribe))
    }

    func testValuesOutOfRange_AreProtocolErrors() {
        let cases: [([UInt8], PropertyContext)] = [
            ([0x21, 0x00, 0x00], .connect),                 // Receive Maximum 0 (§3.1.2.11.3)
            ([0x27, 0x00, 0x00, 0x00, 0x00], .connect),     // Maximum Packet Size 0 (§3.1.2.11.4)
            ([0x17, 0x02], .connect),                       // Request Problem Information 2
            ([0x19, 0x02], .connect),                       // Request Response Information 2
            ([0x01, 0x02], .publish),                       // Payload Format Indicator 2
            ([0x24, 0x02], .connack),                       // Maximum QoS 2 (§3.2.2.3.4)
            ([0x25, 0x02], .connack),                       // Retain Available 2
            ([0x28, 0x05], .connack), ([0x29, 0x05], .connack), ([0x2A, 0x05], .connack),
            ([0x0B, 0x00], .subscribe),                     // Subscription Identifier 0 (§3.8.2.1.2)
        ]
        for (entry, context) in cases {
            XCTAssertThrowsError(try decode(entry, context), "\(entry)") {
                XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .protocolError)
            }
        }
    }

    func testMalformedLists() {
        let cases: [([UInt8], PropertyContext)] = [
            ([0x00], .publish),                              // identifier 0 is none
            ([0x7F], .publish),                              // unknown identifier
            ([0x80, 0x01], .publish),                        // a two-byte identifier (128) is unknown
            ([0x02, 0x00, 0x00], .publish),                  // Four Byte Integer cut short
            ([0x03, 0x00, 0x05, 0x61], .publish),            // string longer than the list
            ([0x03, 0x00, 0x01, 0x00], .publish),            // U+0000 in Content Type
            ([0x26, 0x00, 0x01, 0x61], .publish),            // String Pair without its value
            ([0x0B, 0x80, 0x80, 0x80, 0x80, 0x01], .publish),// Variable Byte Integer of five bytes
            ([0x0B, 0x80, 0x00], .publish),                  // not minimally encoded
        ]
        for (entry, context) in cases {
            XCTAssertThrowsError(try decode(entry, context), "\(entry)") {
                XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket, "\($0)")
            }
        }
        // A Property Length longer than the packet.
        var r = MQTTReader([0x05, 0x01, 0x00])
        XCTAssertThrowsError(try Properties.decode(from: &r, context: .publish))
        // A Property Length that ends inside a property.
        var cut = MQTTReader([0x02, 0x02, 0x00, 0x00, 0x00, 0x01])
        XCTAssertThrowsError(try Properties.decode(from: &cut, context: .publish))
    }
}
