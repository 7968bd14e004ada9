import JSON
import Lexicon
import XCTest

/// The lexicon types that read and write themselves directly (`JSONObjectCodable`) agree with
/// their Codable conformance on every variant of a full sample: same value or same error, same
/// bytes out. A member read out of order, under another key or with another optionality fails here.
final class LexiconDirectCodingTests: XCTestCase {
    private func check<T: JSONObjectCodable & Equatable>(_ type: T.Type, _ samples: [String]) {
        var decoded = 0, refused = 0
        for sample in samples {
            let counts = DirectCodingAgreement.assertAgree(T.self, on: DirectCodingAgreement.variants(of: Array(sample.utf8)))
            decoded += counts.decoded
            refused += counts.refused
        }
        XCTAssertGreaterThan(decoded, 10, "\(T.self)")
        XCTAssertGreaterThan(refused, 100, "\(T.self)")
    }

    func testSendMessageInput() {
        check(SendMessageInput.self, [
            #"{"convoId":"c1","msgId":"01J0ABCDEFGHJKMNPQRSTVWXYZ","ciphertext":{"$bytes":"AAECAwQ"},"epoch":3,"paddedSize":512,"idempotencyKey":"k","attachments":["b1","b2"]}"#,
            #"{"convoId":"c1","msgId":"m","hash":"ab12","size":10,"epoch":0}"#,
        ])
    }

    func testSendMessageOutput() {
        check(SendMessageOutput.self, [
            #"{"messageId":"m","receivedAt":"2026-11-24T00:00:00.000Z","seq":7,"epoch":2}"#,
            #"{"messageId":"m","receivedAt":"t","seq":7,"epoch":2,"serverTime":"t","recipients":[{"did":"did:plc:a","storage":{"type":"s3","endpoint":"https://e","config":{"bucket":"b"}}},{"did":"did:plc:b"}]}"#,
        ])
    }

    func testGetMessagesOutput() {
        check(GetMessagesOutput.self, [
            #"{"messages":[{"id":"m1","convoId":"c","sender":"did:plc:a","ciphertext":{"$bytes":"AAEC"},"epoch":1,"seq":1,"createdAt":"t","messageType":"app"},{"id":"m2","convoId":"c","sender":"did:plc:b","epoch":1,"seq":2,"createdAt":"t","messageType":"commit","contentHash":"ab","size":3}],"lastSeq":2,"cursor":"2"}"#,
            #"{"messages":[]}"#,
        ])
    }

    func testGetConvosOutput() {
        check(GetConvosOutput.self, [
            #"{"conversations":[{"id":"ab","groupId":"ab","creator":"did:plc:a","members":[{"did":"did:plc:a","joinedAt":"t","leafIndex":0,"isAdmin":true,"credential":{"$bytes":"AAEC"}},{"did":"did:plc:b","joinedAt":"t","isAdmin":false}],"epoch":4,"cipherSuite":"MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519","createdAt":"t","lastMessageAt":"t","metadata":{"name":"n","description":"d"},"handshake":"sealed"}],"cursor":"c"}"#,
            #"{"conversations":[{"id":"ab","groupId":"ab","creator":"did:plc:a","members":[],"epoch":0,"cipherSuite":"s","createdAt":"t","metadata":{}}]}"#,
        ])
    }
}
