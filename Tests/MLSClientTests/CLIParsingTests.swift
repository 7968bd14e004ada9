import ArgumentParser
@testable import catbird_mls
import XCTest

/// The command line: subcommands, arguments, global options and their defaults, and refusals.
final class CLIParsingTests: XCTestCase {
    func parse(_ arguments: [String]) throws -> ParsableCommand {
        try CatbirdMLS.parseAsRoot(arguments)
    }

    func testSendJoinsWordsAndReadsGlobalOptions() throws {
        let command = try XCTUnwrap(try parse(["send", "abcd", "hello", "there", "--dir", "/tmp/u", "--json",
                                               "--server", "http://127.0.0.1:9", "--service-did", "did:web:mls.test"]) as? Send)
        XCTAssertEqual(command.convo, "abcd")
        XCTAssertEqual(command.text, ["hello", "there"])
        XCTAssertEqual(command.options.dir, "/tmp/u")
        XCTAssertEqual(command.options.directory.path, "/tmp/u")
        XCTAssertTrue(command.options.json)
        XCTAssertEqual(command.options.server, "http://127.0.0.1:9")
        XCTAssertEqual(command.options.serviceDID, "did:web:mls.test")
    }

    func testDefaults() throws {
        let command = try XCTUnwrap(try parse(["convos"]) as? Convos)
        XCTAssertEqual(command.options.server, "http://127.0.0.1:8080")
        XCTAssertEqual(command.options.serviceDID, "did:web:localhost")
        XCTAssertFalse(command.options.json)
        let publish = try XCTUnwrap(try parse(["publish-key-packages"]) as? PublishKeyPackages)
        XCTAssertEqual(publish.count, 10)
        let plc = try XCTUnwrap(try parse(["dev-plc", "--folder", "/tmp/plc"]) as? DevPLC)
        XCTAssertEqual(plc.port, 2582)
    }

    func testEverySubcommandParses() throws {
        XCTAssertTrue(try parse(["init", "--plc", "http://127.0.0.1:2582"]) is Init)
        XCTAssertTrue(try parse(["init", "--did", "did:plc:abc", "--token", "t"]) is Init)
        XCTAssertEqual((try parse(["publish-key-packages", "--count", "5"]) as? PublishKeyPackages)?.count, 5)
        let create = try XCTUnwrap(try parse(["create", "--name", "team", "did:plc:b", "did:plc:c"]) as? Create)
        XCTAssertEqual(create.name, "team")
        XCTAssertEqual(create.invite, ["did:plc:b", "did:plc:c"])
        XCTAssertFalse(create.sealed)
        XCTAssertEqual((try parse(["create", "--sealed", "did:plc:b"]) as? Create)?.sealed, true)
        XCTAssertEqual((try parse(["invite", "ab", "did:plc:b", "did:plc:c"]) as? Invite)?.dids, ["did:plc:b", "did:plc:c"])
        XCTAssertEqual((try parse(["join", "ab"]) as? Join)?.convo, "ab")
        XCTAssertEqual((try parse(["read", "ab", "--all"]) as? catbird_mls.Read)?.all, true)
        XCTAssertEqual((try parse(["remove", "ab", "did:plc:b"]) as? Remove)?.did, "did:plc:b")
        XCTAssertEqual((try parse(["leave", "ab"]) as? Leave)?.convo, "ab")
        XCTAssertEqual((try parse(["rejoin", "ab"]) as? Rejoin)?.convo, "ab")
    }

    func testRefusals() {
        let refused: [[String]] = [
            ["frobnicate"],
            ["send", "ab"],                            // no text
            ["invite", "ab"],                          // nobody to invite
            ["remove", "ab"],                          // no DID
            ["join"],
            ["publish-key-packages", "--count", "0"],
            ["publish-key-packages", "--count", "many"],
            ["init", "--did", "did:plc:abc"],          // --did without --token
            ["init", "--did", "did:plc:abc", "--token", "t", "--plc", "http://x"],
            ["create", "--name", String(repeating: "n", count: 129)],
            ["dev-plc"],                               // --folder is required
            ["dev-plc", "--folder", "/tmp/p", "--port", "70000"],
            ["send", "ab", "hi", "--bogus"],
        ]
        for arguments in refused {
            XCTAssertThrowsError(try CatbirdMLS.parseAsRoot(arguments), "\(arguments)") { error in
                XCTAssertNotEqual(CatbirdMLS.exitCode(for: error), .success, "\(arguments)")
            }
        }
    }

    func testNoSubcommandIsTheRootCommand() throws {
        XCTAssertTrue(try parse([]) is CatbirdMLS)
    }

    func testHelpMentionsThePrivateAddressSwitch() {
        let help = CatbirdMLS.helpMessage(for: DevPLC.self)
        XCTAssertTrue(help.contains("DID_RESOLVER_ALLOW_PRIVATE=1"))
        XCTAssertTrue(help.contains("PLC_URL"))
    }
}
