import Basics
import Foundation
import Lexicon
import XCTest

/// lexicon/*.json and the Lexicon types agree: every JSON input and output body, and every def of
/// defs.json, has a type here, with the same field names, the same JSON types, and the same
/// required-ness (required in the lexicon ⇔ not optional in Swift). Runs in `make test`; a field
/// added on one side only fails it.
final class LexiconAgreementTests: XCTestCase {
    /// Each method's JSON bodies and the types that carry them.
    static let bodies: [(lexicon: String, part: String, type: any Decodable.Type)] = [
        ("addMembers", "input", AddMembersInput.self), ("addMembers", "output", AddMembersOutput.self),
        ("commitGroupChange", "input", CommitGroupChangeInput.self), ("commitGroupChange", "output", CommitGroupChangeOutput.self),
        ("confirmWelcome", "input", ConfirmWelcomeInput.self), ("confirmWelcome", "output", ConfirmWelcomeOutput.self),
        ("createConvo", "input", CreateConvoInput.self), ("createConvo", "output", ConvoView.self),
        ("getCommits", "output", GetCommitsOutput.self),
        ("getConvo", "output", ConvoView.self),
        ("getConvos", "output", GetConvosOutput.self),
        ("getEpoch", "output", GetEpochOutput.self),
        ("getGroupInfo", "output", GetGroupInfoOutput.self),
        ("getKeyPackageStats", "output", GetKeyPackageStatsOutput.self),
        ("getKeyPackages", "output", GetKeyPackagesOutput.self),
        ("getMessages", "output", GetMessagesOutput.self),
        ("getStorage", "output", StorageRegistrationView.self),
        ("getSubscriptionTicket", "input", GetSubscriptionTicketInput.self),
        ("getSubscriptionTicket", "output", GetSubscriptionTicketOutput.self),
        ("getWelcome", "output", GetWelcomeOutput.self),
        ("leaveConvo", "input", LeaveConvoInput.self), ("leaveConvo", "output", LeaveConvoOutput.self),
        ("processExternalCommit", "input", ProcessExternalCommitInput.self),
        ("processExternalCommit", "output", ProcessExternalCommitOutput.self),
        ("publishKeyPackage", "input", PublishKeyPackageInput.self), ("publishKeyPackage", "output", PublishKeyPackageOutput.self),
        ("publishKeyPackages", "input", PublishKeyPackagesInput.self),
        ("publishKeyPackages", "output", PublishKeyPackagesOutput.self),
        ("registerStorage", "input", RegisterStorageInput.self), ("registerStorage", "output", StorageRegistrationView.self),
        ("registerDeviceToken", "input", RegisterDeviceTokenInput.self), ("registerDeviceToken", "output", DeviceTokenOutput.self),
        ("unregisterDeviceToken", "input", UnregisterDeviceTokenInput.self), ("unregisterDeviceToken", "output", DeviceTokenOutput.self),
        ("removeMember", "input", RemoveMemberInput.self), ("removeMember", "output", RemoveMemberOutput.self),
        ("sendMessage", "input", SendMessageInput.self), ("sendMessage", "output", SendMessageOutput.self),
        ("updateGroupInfo", "input", UpdateGroupInfoInput.self), ("updateGroupInfo", "output", UpdateGroupInfoOutput.self),
        ("uploadBlob", "output", UploadBlobOutput.self),
    ]

    /// The shared objects of defs.json.
    static let defs: [(name: String, type: any Decodable.Type)] = [
        ("convoView", ConvoView.self), ("convoMetadata", ConvoMetadata.self), ("memberView", MemberView.self),
        ("messageView", MessageView.self), ("keyPackageRef", KeyPackageRef.self),
        ("storageProvider", StorageProviderView.self), ("storageRegistration", StorageRegistrationView.self),
        ("recipientView", RecipientView.self),
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("lexicon")

    func testEveryJSONBody_HasAType() throws {
        let lexicons = try LexiconFile.all(in: Self.directory)
        XCTAssertGreaterThanOrEqual(lexicons.count, 29, "lexicon files")
        var expected: Set<String> = []
        for file in lexicons.values where file.name != "defs" {
            for part in ["input", "output"] where file.jsonSchema(part) != nil { expected.insert("\(file.name) \(part)") }
        }
        XCTAssertEqual(Set(Self.bodies.map { "\($0.lexicon) \($0.part)" }), expected)
        let defs = try XCTUnwrap(lexicons["defs"])
        XCTAssertEqual(Set(Self.defs.map(\.name)), Set(defs.definitions.keys))
    }

    func testBodies_AgreeWithTheirTypes() throws {
        let lexicons = try LexiconFile.all(in: Self.directory)
        for (name, part, type) in Self.bodies {
            let file = try XCTUnwrap(lexicons[name], name)
            let schema = try XCTUnwrap(file.jsonSchema(part), "\(name) \(part)")
            let expected = try schema.shape(in: file, lexicons: lexicons)
            let actual = try ShapeRecorder.record(type).shape
            XCTAssertEqual(expected.differences(from: actual, at: ""), [], "\(name) \(part) vs \(type)")
        }
    }

    func testDefs_AgreeWithTheirTypes() throws {
        let lexicons = try LexiconFile.all(in: Self.directory)
        let defs = try XCTUnwrap(lexicons["defs"])
        for (name, type) in Self.defs {
            let schema = try XCTUnwrap(defs.definitions[name], name)
            let expected = try schema.shape(in: defs, lexicons: lexicons)
            XCTAssertEqual(expected.differences(from: try ShapeRecorder.record(type).shape, at: ""), [], "defs#\(name) vs \(type)")
        }
    }

    /// The check itself can fail: a field missing, one too many, a wrong type, a wrong optionality.
    func testTheCheck_SeesEachKindOfDifference() throws {
        struct Missing: Decodable { var convoId: String }
        struct Extra: Decodable { var newEpoch: Int64; var extra: String? }
        struct WrongType: Decodable { var newEpoch: String }
        struct Optional: Decodable { var newEpoch: Int64? }
        let lexicons = try LexiconFile.all(in: Self.directory)
        let file = try XCTUnwrap(lexicons["commitGroupChange"])
        let input = try XCTUnwrap(file.jsonSchema("input")).shape(in: file, lexicons: lexicons)
        let output = try XCTUnwrap(file.jsonSchema("output")).shape(in: file, lexicons: lexicons)
        XCTAssertEqual(input.differences(from: try ShapeRecorder.record(Missing.self).shape, at: "").count, 4)
        XCTAssertEqual(output.differences(from: try ShapeRecorder.record(Extra.self).shape, at: ""),
                       ["extra: in the type, not in the lexicon"])
        XCTAssertEqual(output.differences(from: try ShapeRecorder.record(WrongType.self).shape, at: ""),
                       ["newEpoch: the lexicon says integer, the type string"])
        XCTAssertEqual(output.differences(from: try ShapeRecorder.record(Optional.self).shape, at: ""),
                       ["newEpoch: the lexicon has it required, the type optional"])
    }
}
