import ArgumentParser

/// `catbird-mls`: a command-line MLS chat client for the blue.catbird.mls delivery service.
@main
struct CatbirdMLS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catbird-mls",
        abstract: "End-to-end encrypted group chat over the blue.catbird.mls delivery service.",
        discussion: """
        Each user keeps an identity and MLS state in a directory (--dir). Local use without a PDS:
          catbird-mls dev-plc --folder /tmp/plc &
          SERVICE_DID=did:web:localhost PLC_URL=http://127.0.0.1:2582 DID_RESOLVER_ALLOW_PRIVATE=1 catbird-mls-server &
          catbird-mls init --dir /tmp/alice --plc http://127.0.0.1:2582
        The server refuses to resolve DIDs at private addresses unless DID_RESOLVER_ALLOW_PRIVATE=1
        (its SSRF guard); set it only for local development.
        """,
        subcommands: [
            Init.self, PublishKeyPackages.self, Create.self, Invite.self, Join.self, Send.self, Read.self,
            Remove.self, Update.self, Leave.self, Rejoin.self, Convos.self, Chat.self, DevPLC.self, ExportSecret.self,
        ])
}
