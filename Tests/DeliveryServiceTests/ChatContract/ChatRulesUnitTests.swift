import ATProto
import Basics
import ChatProtocol
import Foundation
import XCTest
@testable import DeliveryService

/// The relationship and typing rules as values, without sockets or clocks: what a check needs,
/// what it decides from which records; the typing limiter's decisions over a hand-moved time.
final class ChatRulesUnitTests: XCTestCase {
    typealias Key = RelationshipResolver.Key
    private let alice = try! DID("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa")
    private let bob = try! DID("did:plc:bbbbbbbbbbbbbbbbbbbbbbbb")
    private let carol = try! DID("did:plc:cccccccccccccccccccccccc")

    private func subjects(_ dids: [DID], complete: Bool = true) -> RelationshipResolver.State {
        .value(.subjects(RepoRecordReader.Subjects(dids: Set(dids.map(\.rawValue)), complete: complete)))
    }

    private func policy(_ fields: [String: RepoRecordReader.Field]?) -> RelationshipResolver.State {
        .value(.policy(ChatPolicy(record: fields)))
    }

    func testAChecksNeeds_ComeInRounds() {
        let check = ChatConsent(roster: [alice, bob], inviter: alice, invitees: [bob], group: false)
        XCTAssertEqual(check.verdict { _ in .missing }, .needs([Key(did: alice, kind: .blocks), Key(did: bob, kind: .blocks),
                                                                Key(did: bob, kind: .policy)]))
        var known: [Key: RelationshipResolver.State] = [
            Key(did: alice, kind: .blocks): subjects([]), Key(did: bob, kind: .blocks): subjects([]),
            Key(did: bob, kind: .policy): policy(["whoCanMessageMe": .string("following")]),
        ]
        XCTAssertEqual(check.verdict { known[$0] ?? .missing }, .needs([Key(did: bob, kind: .follows)]), "the policy asks for bob's follows")
        known[Key(did: bob, kind: .follows)] = subjects([carol])
        XCTAssertEqual(check.verdict { known[$0] ?? .missing }, .refused(.notFollowedByRecipient))
        known[Key(did: bob, kind: .follows)] = subjects([carol], complete: false)
        XCTAssertEqual(check.verdict { known[$0] ?? .missing }, .unavailable, "a cut listing might hide the follow")
        known[Key(did: bob, kind: .follows)] = subjects([carol, alice], complete: false)
        XCTAssertEqual(check.verdict { known[$0] ?? .missing }, .allowed, "unless it shows it")
    }

    func testBlocks_EitherDirection_EveryPair_AndAProvenBlockWinsOverMissingRecords() {
        let roster = ChatConsent(blocks: .roster([alice, bob, carol]))
        XCTAssertEqual(roster.verdict { $0 == Key(did: carol, kind: .blocks) ? self.subjects([self.bob]) : .missing }, .refused(.blockedRelationship))
        XCTAssertEqual(roster.verdict { _ in self.subjects([]) }, .allowed)
        XCTAssertEqual(roster.verdict { $0.did == self.bob ? .unavailable : self.subjects([]) }, .unavailable)
        XCTAssertEqual(roster.verdict { _ in self.subjects([], complete: false) }, .unavailable)

        let actor = ChatConsent(blocks: .actor(alice, others: [bob, carol]))
        XCTAssertEqual(actor.verdict { $0.did == self.bob ? self.subjects([self.carol]) : self.subjects([]) }, .allowed,
                       "a block between two others is not the actor's")
        XCTAssertEqual(actor.verdict { $0.did == self.bob ? self.subjects([self.alice]) : self.subjects([]) }, .refused(.blockedRelationship))
        XCTAssertEqual(ChatConsent(blocks: .actor(alice, others: [alice])).verdict { _ in .missing }, .allowed, "nobody else: nothing to read")
    }

    func testPolicies() {
        func verdict(_ fields: [String: RepoRecordReader.Field]?, group: Bool = false, bobFollowsAlice: Bool = false,
                     aliceFollowsBob: Bool = false) -> ChatConsent.Verdict {
            let check = ChatConsent(roster: [alice, bob], inviter: alice, invitees: [bob], group: group)
            return check.verdict { key in
                switch (key.did, key.kind) {
                case (_, .blocks): return self.subjects([])
                case (self.bob, .policy): return self.policy(fields)
                case (self.bob, .follows): return self.subjects(bobFollowsAlice ? [self.alice] : [])
                case (self.alice, .follows): return self.subjects(aliceFollowsBob ? [self.bob] : [])
                default: return .missing
                }
            }
        }
        XCTAssertEqual(verdict(nil), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("everyone")]), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("none")]), .refused(.messagesDisabled))
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("nobody")], group: true), .refused(.messagesDisabled))
        XCTAssertEqual(verdict(["whoCanMessageMe": .bool(true)]), .refused(.messagesDisabled), "unreadable: none")
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("following")]), .refused(.notFollowedByRecipient))
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("following")], bobFollowsAlice: true), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("mutuals")], bobFollowsAlice: true), .refused(.notFollowedByRecipient))
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("mutuals")], bobFollowsAlice: true, aliceFollowsBob: true), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("none"), "allowGroupInvites": .string("all")], group: true), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("all"), "allowGroupInvites": .string("following")], group: true),
                       .refused(.notFollowedByRecipient))
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("none"), "allowFollowingBypass": .bool(true)], bobFollowsAlice: true), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("none"), "allowFollowersBypass": .bool(true)], aliceFollowsBob: true), .allowed)
        XCTAssertEqual(verdict(["whoCanMessageMe": .string("none"), "allowFollowersBypass": .bool(true)], bobFollowsAlice: true),
                       .refused(.messagesDisabled), "the other direction does not pass this bypass")
    }

    func testTypingLimiter_FoldsABurst_AndRefusesPastIt() throws {
        var limiter = ChatTypingLimiter<String, Int>(interval: 2, burst: 3)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertNil(limiter.admit("k", now: t0))
        guard case .send = limiter.publish("k", 1, now: t0) else { return XCTFail("the first event goes at once") }
        XCTAssertNil(limiter.admit("k", now: t0.addingTimeInterval(0.5)))
        guard case .fold(let at, true) = limiter.publish("k", 2, now: t0.addingTimeInterval(0.5)) else { return XCTFail("folded") }
        XCTAssertEqual(at, t0.addingTimeInterval(2))
        XCTAssertNil(limiter.admit("k", now: t0.addingTimeInterval(1)))
        guard case .fold(_, false) = limiter.publish("k", 3, now: t0.addingTimeInterval(1)) else { return XCTFail("rides on the flush") }
        XCTAssertEqual(try XCTUnwrap(limiter.admit("k", now: t0.addingTimeInterval(1.5))), 0.5, accuracy: 1e-9, "the fourth call in the window")
        XCTAssertNil(limiter.admit("other", now: t0.addingTimeInterval(1.5)), "per key")
        XCTAssertEqual(limiter.flush("k", now: t0.addingTimeInterval(2)), 3, "the latest folded event")
        XCTAssertNil(limiter.flush("k", now: t0.addingTimeInterval(2)))
        XCTAssertNil(limiter.admit("k", now: t0.addingTimeInterval(2.1)), "a new window")
        guard case .fold = limiter.publish("k", 4, now: t0.addingTimeInterval(2.1)) else { return XCTFail("within the interval of the flush") }
    }

    func testTypingNotice_RoundTripsAndFitsNotify() throws {
        let event = ChatTypingEvent(typingID: .random(), conversationID: .random(), actorDID: alice.rawValue, actorDeviceID: .random(),
                                    isTyping: true, expiresAt: CanonicalTimestamp(Date()))
        let recipients = Set((0..<100).map { _ in ChatTypingNotice.tag(did: "did:web:" + String(repeating: "x", count: 200), device: .random()) })
        let notice = ChatTypingNotice(event: event, recipients: recipients)
        XCTAssertLessThan(notice.payload.utf8.count, 8000, "PostgreSQL's NOTIFY payload limit")
        XCTAssertEqual(ChatTypingNotice(payload: notice.payload), notice)
        XCTAssertNil(ChatTypingNotice(payload: "t1 junk"))
    }
}
