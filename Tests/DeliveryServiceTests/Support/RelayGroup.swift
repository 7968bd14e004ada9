import Basics
import MLS
import MQTT
import MQTTClient
import XCTest

extension XCTestCase {
    /// A group of `creator` and `others` created over MQTT (Welcome, GroupInfo, commit), everyone
    /// joined and subscribed to /m (No Local). Returns the convo id.
    func makeGroup(_ creator: RelayTestUser, _ others: [RelayTestUser]) throws -> String {
        var packages: [KeyPackage] = []
        for user in others {
            if user.client == nil { try user.connect() }
            let bundle = try user.user.makeKeyPackage()
            XCTAssertEqual(try user.mqtt.publish(topic: "relay/k/\(user.clientID)",
                                                 payload: CBORArray.encode(byteStrings: [MLSMessage(body: .keyPackage(bundle.keyPackage)).encoded()]))?.reasonCode,
                           .success)
            XCTAssertEqual(try user.mqtt.subscribe("relay/w/\(user.clientID)"), .grantedQoS1)
            packages.append(bundle.keyPackage)
        }
        if creator.client == nil { try creator.connect() }
        var group = try Group.create(suite: creator.user.suite, credential: creator.user.credential, signingKey: creator.user.signingKey)
        let convoID = Hex.encode(group.groupID)
        let output = try group.add(keyPackages: packages, includePath: false)
        group = output.group
        for user in others {
            XCTAssertEqual(try creator.publish("relay/w/\(user.clientID)", try XCTUnwrap(output.welcome).encoded()).reasonCode, .success)
        }
        XCTAssertEqual(try creator.publish("relay/g/\(convoID)/i", MLSMessage(body: .groupInfo(output.groupInfo)).encoded()).reasonCode, .success)
        XCTAssertEqual(try creator.mqtt.subscribe("relay/g/\(convoID)/m", noLocal: true), .grantedQoS1)
        let created = try creator.publish("relay/g/\(convoID)/m", output.commit.encoded())
        XCTAssertEqual(created.reasonCode, .success, "\(String(describing: created.properties.reasonString))")
        creator.user.groups[convoID] = group
        for user in others {
            let welcome = try XCTUnwrap(try user.next(on: "relay/w/\(user.clientID)"), "\(user.did)'s Welcome")
            try user.join(welcome.payload, convoID: convoID)
            XCTAssertEqual(try user.mqtt.subscribe("relay/g/\(convoID)/m", noLocal: true), .grantedQoS1)
        }
        return convoID
    }
}
