import ATProto
import Basics
@testable import DeliveryService
import DeliveryStore
import Foundation
import HTTP
import Primitives
import TestSupport
import XCTest

/// `ServiceConfiguration.fromEnvironment`: every declared variable (docs/configuration.md) lands in the
/// sub-configuration of its layer, and every unusable or half-set value refuses the start with a
/// one-line message naming the variable.
final class ConfigurationTests: XCTestCase {
    /// The smallest environment that starts: DATABASE_URL and SERVICE_DID are required.
    static let base = ["DATABASE_URL": "postgres://db.invalid/catbird", "SERVICE_DID": "did:web:mls.example.com"]

    func configuration(_ variables: [String: String]) throws(ConfigurationError) -> ServiceConfiguration {
        try ServiceConfiguration.fromEnvironment(Self.base.merging(variables) { _, new in new })
    }

    /// The refusal for `variables`, which must name `variable`.
    @discardableResult
    func refusal(_ variables: [String: String], names variable: String,
                 file: StaticString = #filePath, line: UInt = #line) -> ConfigurationError? {
        do throws(ConfigurationError) {
            _ = try configuration(variables)
            XCTFail("\(variables) was accepted", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.variable, variable, "\(variables): \(error)", file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            return error
        }
    }

    func testDefaults() throws {
        let config = try configuration([:])
        XCTAssertEqual(config.http.host, "127.0.0.1")
        XCTAssertEqual(config.http.port, 8080)
        XCTAssertEqual(config.http.workerThreads, 32)
        XCTAssertNil(config.http.tls)
        XCTAssertEqual(config.http.maxConnectionsPerIP, 64)
        XCTAssertNil(config.http.exemptFromConnectionLimit)
        XCTAssertEqual(config.http.headerReadTimeout, 10)
        XCTAssertEqual(config.http.bodyReadTimeout, 30)
        XCTAssertEqual(config.http.streamedBodyMinimumRate, 4096)
        XCTAssertEqual(config.http.streamedBodyTimeout, 900)
        XCTAssertEqual(config.http.idleTimeout, 60)
        XCTAssertEqual(config.http.maxConnections, 4096)
        XCTAssertEqual(config.http.shutdownGracePeriod, 10)
        XCTAssertEqual(config.database.url, "postgres://db.invalid/catbird")
        XCTAssertEqual(config.database.poolSize, 16)
        XCTAssertEqual(config.database.migrationsDirectory, "migrations")
        XCTAssertEqual(config.serviceDID, "did:web:mls.example.com")
        XCTAssertEqual(config.serviceEndpoint, "http://127.0.0.1:8080")
        XCTAssertEqual(config.auth.plcURL, "https://plc.directory")
        XCTAssertFalse(config.auth.allowPrivateAddresses)
        XCTAssertTrue(config.auth.requireLowS)
        XCTAssertEqual(config.auth.clockSkew, 60)
        XCTAssertEqual(config.auth.maxTokenLifetime, 3600)
        XCTAssertEqual(config.logLevel, .info)
        XCTAssertNil(config.metricsToken)
        XCTAssertEqual(config.blobDirectory, ".data/blobs")
        XCTAssertEqual(config.limits.maxExternalMessageBytes, 10 << 20)
        XCTAssertEqual(config.limits.blobQuotaBytes, 1 << 30)
        XCTAssertEqual(config.limits.maxUploadsPerUser, 4)
        XCTAssertEqual(config.limits.maxUploads, 16)
        XCTAssertEqual(config.auth.maxFetches, 16)
        XCTAssertEqual(config.auth.maxFetchesPerHost, 8)
        XCTAssertEqual(config.auth.maxQueuedFetches, 256)
        XCTAssertTrue(config.rateLimits.enabled)
        XCTAssertEqual(config.rateLimits.perIP, RateLimitConfiguration.defaultIPRule)
        XCTAssertEqual(config.rateLimits.perIPResolution, RateLimitRule(ratePerSecond: 2, burst: 30))
        XCTAssertEqual(config.rateLimits.perDID[.send], RateLimitClass.send.defaultRule)
        XCTAssertNil(config.events.ticketKey)
        XCTAssertEqual(config.events.ticketLifetime, 30)
        XCTAssertEqual(config.events.maxSocketsPerUser, 5)
        XCTAssertEqual(config.events.inlineCiphertextLimit, 16384)
        XCTAssertEqual(config.events.workerThreads, 2)
        XCTAssertEqual(config.retention, RetentionSettings())
        XCTAssertEqual(config.retention.ttlDays, 30)
        XCTAssertEqual(config.rateLimits.ipv6Prefix, 64)
        XCTAssertEqual(config.limits.maxConvosPerUser, 10_000)
        XCTAssertEqual(config.limits.messageQuotaBytes, 1 << 30)
        XCTAssertEqual(config.limits.keyPackageUses, KeyPackageUseLimits(perRequester: 20, perTarget: 100, window: 3600))
        XCTAssertNil(config.mqttPort, "the MQTT listener is off unless MQTT_PORT is set")
    }

    /// One usable, non-default value for every variable the service reads: the declarations' examples.
    static let everyVariable: [String: String] = Dictionary(
        uniqueKeysWithValues: ServiceConfiguration.environmentVariables.map { ($0.name, $0.example) })

    /// Each declared variable, set alone to its example, changes the configuration or refuses the
    /// start for want of its set's other part (half of the TLS pair, of a push platform's
    /// credentials): none is declared without being read.
    func testEveryDeclaredVariable_IsRead() throws {
        let defaults = String(describing: try configuration([:]))
        for variable in ServiceConfiguration.environmentVariables {
            do throws(ConfigurationError) {
                let changed = String(describing: try configuration([variable.name: variable.example]))
                XCTAssertTrue(changed != defaults, "\(variable.name)=\(variable.example) changed nothing: is it read?")
            } catch {
                XCTAssertNotEqual(error.variable, variable.name, "\(variable.name)=\(variable.example) refused: \(error)")
                XCTAssertTrue(error.problem.contains(variable.name), "the refusal names what is set: \(error)")
            }
        }
        let tls = try configuration(["TLS_CERT_FILE": "/c.pem", "TLS_KEY_FILE": "/k.pem"])
        XCTAssertNotEqual(String(describing: tls), defaults)
    }

    /// A declared literal default is the default: setting it changes nothing.
    func testDeclaredDefaults_AreTheDefaults() throws {
        let defaults = String(describing: try configuration([:]))
        for variable in ServiceConfiguration.environmentVariables {
            guard case .value(let value) = variable.defaultValue else { continue }
            XCTAssertTrue(String(describing: try configuration([variable.name: value])) == defaults,
                          "\(variable.name) is declared to default to \(value), but setting that changes the configuration")
            XCTAssertNotEqual(variable.example, value, "\(variable.name): the example must differ from the default")
        }
        let required = ServiceConfiguration.environmentVariables.filter {
            if case .required = $0.defaultValue { true } else { false }
        }
        XCTAssertEqual(required.map(\.name), ["DATABASE_URL", "SERVICE_DID"])
    }

    /// Names are unique environment-variable names; every cell has text and fits a Markdown table row.
    func testDeclarations_AreWellFormed() {
        let names = ServiceConfiguration.environmentVariables.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "a variable declared twice")
        for variable in ServiceConfiguration.environmentVariables {
            XCTAssertTrue(variable.name.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }, variable.name)
            for cell in [variable.meaning, variable.guards, variable.defaultValue.text, variable.group.summary] {
                XCTAssertFalse(cell.trimmingCharacters(in: .whitespaces).isEmpty, "\(variable.name): an empty cell")
                XCTAssertFalse(cell.contains("|") || cell.contains("\n"), "\(variable.name): \(cell)")
            }
        }
        XCTAssertEqual(ServiceConfiguration.environmentVariables.filter(\.secret).map(\.name).sorted(),
                       ["DATABASE_URL", "METRICS_TOKEN", "SUBSCRIPTION_TICKET_KEY"])
    }

    static let configurationDocument = TestDatabase.repositoryRoot + "/docs/configuration.md"

    /// docs/configuration.md names exactly the variables the service reads, in its tables' first
    /// column, and its generated part is what the declarations generate today.
    func testConfigurationDocument_NamesEveryVariableTheServiceReads() throws {
        let document = try String(contentsOfFile: Self.configurationDocument, encoding: .utf8)
        var documented: Set<String> = []
        for line in document.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for name in cell.split(separator: ",") {
                documented.insert(name.trimmingCharacters(in: CharacterSet(charactersIn: " `")))
            }
        }
        let read = Set(ServiceConfiguration.environmentVariables.map(\.name))
        for name in read.subtracting(documented).sorted() {
            XCTFail("\(name) is read by ServiceConfiguration but missing from docs/configuration.md (run scripts/configuration-doc.sh)")
        }
        for name in documented.subtracting(read).sorted() {
            XCTFail("docs/configuration.md names \(name), which ServiceConfiguration does not read")
        }
        let begin = try XCTUnwrap(document.range(of: ConfigurationDocument.beginMarker), "the BEGIN marker is missing")
        let end = try XCTUnwrap(document.range(of: ConfigurationDocument.endMarker), "the END marker is missing")
        let generated = document[begin.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(generated == ConfigurationDocument.markdown.trimmingCharacters(in: .whitespacesAndNewlines),
                      "docs/configuration.md is not what the declarations generate: run scripts/configuration-doc.sh")
    }

    /// `--help` prints the declarations (every variable, its default and what it guards against)
    /// and exits 0; any other argument refuses the start.
    func testServer_Help_ListsEveryVariable() throws {
        let (status, output, _) = try runServer([:], arguments: ["--help"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(output, ConfigurationDocument.help)
        for variable in ServiceConfiguration.environmentVariables {
            XCTAssertTrue(output.contains("\n  \(variable.name) (default: "), variable.name)
        }
        XCTAssertTrue(output.contains("Guards against: Slowloris"), output)
        let (markdownStatus, markdown, _) = try runServer([:], arguments: ["--configuration-markdown"])
        XCTAssertEqual(markdownStatus, 0)
        XCTAssertEqual(markdown, ConfigurationDocument.markdown)
        let (unknownStatus, _, error) = try runServer([:], arguments: ["--port=9000"])
        XCTAssertEqual(unknownStatus, 2)
        XCTAssertTrue(error.hasPrefix("catbird-mls-server: unknown argument \"--port=9000\""), error)
    }

    func testEveryVariable_ReachesItsLayer() throws {
        let config = try configuration(Self.everyVariable)
        XCTAssertEqual(config.http.host, "0.0.0.0")
        XCTAssertEqual(config.http.port, 9000)
        XCTAssertEqual(config.http.workerThreads, 4)
        XCTAssertEqual(config.http.tls, HTTPServerTLSConfiguration(certificateChainFile: "/c.pem", privateKeyFile: "/k.pem"))
        XCTAssertEqual(config.http.maxConnectionsPerIP, 7)
        XCTAssertEqual(config.http.streamedBodyMinimumRate, 100)
        XCTAssertEqual(config.http.streamedBodyTimeout, 120)
        XCTAssertEqual(config.http.exemptFromConnectionLimit?("10.1.2.3"), true, "a trusted proxy")
        XCTAssertEqual(config.http.exemptFromConnectionLimit?("203.0.113.1"), false)
        XCTAssertEqual(config.limits.maxUploadsPerUser, 2)
        XCTAssertEqual(config.limits.maxUploads, 6)
        XCTAssertEqual(config.auth.maxFetches, 5)
        XCTAssertEqual(config.auth.maxFetchesPerHost, 2)
        XCTAssertEqual(config.auth.maxQueuedFetches, 11)
        XCTAssertEqual(config.rateLimits.perIPResolution, RateLimitRule(ratePerSecond: 1, burst: 3))
        XCTAssertEqual(try configuration(["WORKER_THREADS": "10"]).limits.maxUploads, 5, "half the workers unless set")
        XCTAssertNil(try configuration(["RATE_LIMIT_DID_RESOLUTION": "off"]).rateLimits.perIPResolution)
        XCTAssertEqual(config.http.headerReadTimeout, 1.5)
        XCTAssertEqual(config.http.bodyReadTimeout, 2)
        XCTAssertEqual(config.http.idleTimeout, 5)
        XCTAssertEqual(config.http.maxConnections, 10)
        XCTAssertEqual(config.http.shutdownGracePeriod, 3)
        XCTAssertEqual(config.database.poolSize, 3)
        XCTAssertEqual(config.database.migrationsDirectory, "/m")
        XCTAssertEqual(config.auth.audiences, ["did:web:x.com", "did:web:x.com#atproto_mls"])
        XCTAssertEqual(config.serviceEndpoint, "https://x.com")
        XCTAssertEqual(config.auth.plcURL, "http://127.0.0.1:9")
        XCTAssertTrue(config.auth.allowPrivateAddresses)
        XCTAssertFalse(config.auth.requireLowS)
        XCTAssertEqual(config.logLevel, .warning)
        XCTAssertEqual(config.metricsToken, "s3cret")
        XCTAssertEqual(config.blobDirectory, "/blobs")
        XCTAssertEqual(config.limits.maxExternalMessageBytes, 4096)
        XCTAssertEqual(config.limits.blobQuotaBytes, 10000)
        XCTAssertFalse(config.rateLimits.enabled)
        XCTAssertEqual(config.rateLimits.perDID[.send], RateLimitRule(ratePerSecond: 1, burst: 2))
        XCTAssertNil(config.rateLimits.perDID[.read])
        XCTAssertEqual(config.rateLimits.perDID[.keyPackages], RateLimitRule(ratePerSecond: 5, burst: 6))
        XCTAssertEqual(config.rateLimits.perDID[.membership], RateLimitRule(ratePerSecond: 7, burst: 8))
        XCTAssertEqual(config.rateLimits.perIP, RateLimitRule(ratePerSecond: 3, burst: 4))
        XCTAssertEqual(config.rateLimits.trustedProxies.networks.count, 2)
        XCTAssertEqual(config.events.ticketKey, Array(repeating: 0xAB, count: 32))
        XCTAssertEqual(config.events.ticketLifetime, 60)
        XCTAssertEqual(config.events.maxSocketsPerUser, 9)
        XCTAssertEqual(config.events.inlineCiphertextLimit, 0)
        XCTAssertEqual(config.events.workerThreads, 3)
        XCTAssertEqual(config.retention.ttlDays, 7)
        XCTAssertEqual(config.retention.keepCommitEpochs, 0)
        XCTAssertEqual(config.retention.batchSize, 500)
        XCTAssertEqual(config.retention.interval, 60)
        XCTAssertEqual(config.rateLimits.ipv6Prefix, 48)
        XCTAssertEqual(config.limits.maxConvosPerUser, 12)
        XCTAssertEqual(config.limits.messageQuotaBytes, 65536)
        XCTAssertEqual(config.limits.keyPackageUses, KeyPackageUseLimits(perRequester: 3, perTarget: 9, window: 600))
        XCTAssertEqual(config.limits.storeConfiguration.keyPackageUses, config.limits.keyPackageUses)
        XCTAssertEqual(config.limits.storeConfiguration.messageQuotaBytes, 65536)
        XCTAssertEqual(config.limits.storeConfiguration.maxConvosPerUser, 12)
        XCTAssertEqual(config.mqttPort, 1883)

        XCTAssertEqual(try configuration(["HOST": "::1", "PORT": "0"]).serviceEndpoint, "http://[::1]:0")
        XCTAssertEqual(try configuration(["SUBSCRIPTION_TICKET_KEY": Base64.encode(Array(repeating: 1, count: 48))])
            .events.ticketKey?.count, 48)
        XCTAssertEqual(try configuration(["MESSAGE_TTL_DAYS": "0"]).retention.ttlDays, 0)
        XCTAssertTrue(try configuration(["RATE_LIMIT_ENABLED": "1"]).rateLimits.enabled)
        XCTAssertNil(try configuration(["RATE_LIMIT_IP": "off"]).rateLimits.perIP)
        // An empty value is the same as an unset one.
        XCTAssertEqual(try configuration(["PORT": "", "TLS_CERT_FILE": "", "TLS_KEY_FILE": ""]).http.port, 8080)
    }

    func testHalfSetTLS_Refuses() {
        let keyMissing = refusal(["TLS_CERT_FILE": "/c.pem"], names: "TLS_KEY_FILE")
        XCTAssertEqual(keyMissing?.description,
                       "TLS_KEY_FILE: not set, but TLS_CERT_FILE is: set both to serve TLS, or neither")
        refusal(["TLS_KEY_FILE": "/k.pem"], names: "TLS_CERT_FILE")
        refusal(["TLS_CERT_FILE": "/c.pem", "TLS_KEY_FILE": ""], names: "TLS_KEY_FILE")
    }

    /// Each push platform is off until all its credentials are set; a part alone refuses the start.
    func testPushPlatforms_AreAllOrNothing() throws {
        let apns = ["APNS_KEY_FILE": "/k.p8", "APNS_KEY_ID": "ABC123DEFG", "APNS_TEAM_ID": "DEF123GHIJ", "APNS_TOPIC": "app.example"]
        let config = try configuration(apns)
        XCTAssertEqual(config.push.apns?.host, .perDevice)
        XCTAssertTrue(config.push.enabled)
        XCTAssertFalse(try configuration([:]).push.enabled)
        XCTAssertEqual(try configuration(apns.merging(["APNS_HOST": "https://127.0.0.1:8443"]) { $1 }).push.apns?.host,
                       .custom(host: "127.0.0.1", port: 8443))
        XCTAssertEqual(try configuration(apns.merging(["APNS_HOST": "sandbox"]) { $1 }).push.apns?.host, .sandbox)
        refusal(apns.filter { $0.key != "APNS_TEAM_ID" }, names: "APNS_TEAM_ID")
        refusal(["APNS_TOPIC": "app.example"], names: "APNS_KEY_FILE")
        refusal(apns.merging(["APNS_KEY_ID": "short"]) { $1 }, names: "APNS_KEY_ID")
        refusal(apns.merging(["APNS_HOST": "http://127.0.0.1:8443"]) { $1 }, names: "APNS_HOST")
        refusal(["VAPID_PRIVATE_KEY_FILE": "/v.pem"], names: "VAPID_SUBJECT")
        refusal(["VAPID_PRIVATE_KEY_FILE": "/v.pem", "VAPID_SUBJECT": "ops@example.com"], names: "VAPID_SUBJECT")
        refusal(["FCM_URL": "https://fcm.example/send"], names: "FCM_SERVICE_ACCOUNT_FILE")
        XCTAssertEqual(try configuration(["FCM_SERVICE_ACCOUNT_FILE": "/a.json", "FCM_TOKEN_URL": "https://o.example/token"]).push.fcm?.tokenURL,
                       "https://o.example/token")
    }

    /// A key file the service cannot use refuses the start, naming its variable.
    func testUnusablePushKeys_RefuseTheStart() throws {
        for (variable, extra) in [
            ("VAPID_PRIVATE_KEY_FILE", ["VAPID_PRIVATE_KEY_FILE": "/nonexistent.pem", "VAPID_SUBJECT": "mailto:a@b.example"]),
            ("FCM_SERVICE_ACCOUNT_FILE", ["FCM_SERVICE_ACCOUNT_FILE": "/etc/hostname"]),
        ] {
            XCTAssertThrowsError(try ServiceHarness(environment: extra)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.variable, variable, "\(error)")
            }
        }
    }

    /// No default audience: unset or empty, SERVICE_DID refuses the start (make run supplies the
    /// development one itself, scripts/run.sh).
    func testMissingServiceDID_Refuses() {
        for environment in [["DATABASE_URL": "postgres://db.invalid/x"], ["DATABASE_URL": "postgres://db.invalid/x", "SERVICE_DID": ""]] {
            XCTAssertThrowsError(try ServiceConfiguration.fromEnvironment(environment)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.variable, "SERVICE_DID")
                XCTAssertNil((error as? ConfigurationError)?.value)
            }
        }
        XCTAssertEqual(try configuration(["SERVICE_DID": ServiceConfiguration.developmentServiceDID]).serviceDID, "did:web:localhost")
    }

    func testMissingDatabaseURL_Refuses() {
        XCTAssertThrowsError(try ServiceConfiguration.fromEnvironment([:])) { error in
            XCTAssertEqual((error as? ConfigurationError)?.variable, "DATABASE_URL")
        }
    }

    func testUnusableValues_Refuse() {
        let cases: [(String, String)] = [
            ("HOST", "not-an-address"), ("HOST", "1.2.3.4:80"), ("PORT", "not a number"), ("PORT", "65536"),
            ("PORT", "-1"), ("WORKER_THREADS", "0"), ("DATABASE_POOL_SIZE", "0"), ("DATABASE_POOL_SIZE", "x"),
            ("SERVICE_DID", "mls.example.com"), ("SERVICE_DID", "did:web:x.com#atproto_mls"),
            ("SERVICE_ENDPOINT", "mls.example.com"), ("PLC_URL", "ftp://plc.directory"),
            ("DID_RESOLVER_ALLOW_PRIVATE", "maybe"), ("AUTH_REQUIRE_LOW_S", "2"), ("LOG_LEVEL", "loud"),
            ("MAX_CONNECTIONS_PER_IP", "-1"), ("MAX_CONNECTIONS", "-1"), ("MAX_CONNECTIONS", "0"),
            ("HEADER_READ_TIMEOUT", "0"), ("BODY_READ_TIMEOUT", "nan"), ("IDLE_TIMEOUT", "86401"),
            ("SHUTDOWN_GRACE_PERIOD", "-3"),
            ("THIN_MESSAGE_MAX_BYTES", "0"), ("THIN_MESSAGE_MAX_BYTES", "-1"), ("THIN_MESSAGE_MAX_BYTES", "ten"),
            ("THIN_MESSAGE_MAX_BYTES", "1e6"), ("THIN_MESSAGE_MAX_BYTES", "99999999999"), ("BLOB_QUOTA_BYTES", "-5"),
            ("RATE_LIMIT_ENABLED", "maybe"), ("RATE_LIMIT_IP", "1"), ("RATE_LIMIT_MEMBERSHIP", "fast"),
            ("RATE_LIMIT_SEND", "0,5"), ("RATE_LIMIT_READ", "1,2,3"), ("RATE_LIMIT_KEY_PACKAGES", "5,0"),
            ("TRUSTED_PROXIES", "10.0.0.0/33"),
            ("SUBSCRIPTION_TICKET_TTL", "0"), ("SUBSCRIPTION_TICKET_TTL", "301"), ("EVENTS_MAX_SOCKETS_PER_USER", "0"),
            ("EVENTS_INLINE_CIPHERTEXT_MAX", "-1"), ("EVENTS_WORKER_THREADS", "65"),
            ("MESSAGE_TTL_DAYS", "-1"), ("MESSAGE_TTL_DAYS", "thirty"), ("MESSAGE_BATCH_LANES", "0"), ("MESSAGE_BATCH_MAX", "1001"), ("RETENTION_BATCH_SIZE", "0"),
            ("RETENTION_KEEP_COMMIT_EPOCHS", "-2"), ("RETENTION_INTERVAL_SECONDS", "0"),
            ("RATE_LIMIT_IPV6_PREFIX", "16"), ("RATE_LIMIT_IPV6_PREFIX", "129"), ("MAX_CONVOS_PER_USER", "0"),
            ("MESSAGE_QUOTA_BYTES", "0"), ("MESSAGE_QUOTA_BYTES", "1GB"), ("KEY_PACKAGE_USES_PER_REQUESTER", "0"),
            ("KEY_PACKAGE_USES_PER_TARGET", "-1"), ("KEY_PACKAGE_USE_WINDOW", "0"), ("KEY_PACKAGE_USE_WINDOW", "2592001"),
            ("DID_RESOLVER_THREADS", "0"), ("DID_RESOLVER_PER_HOST", "x"), ("DID_RESOLVER_QUEUE", "0"),
            ("RATE_LIMIT_DID_RESOLUTION", "2"), ("BODY_MIN_RATE", "-1"), ("BODY_STREAM_TIMEOUT", "0"),
            ("MAX_UPLOADS_PER_USER", "0"), ("MAX_UPLOADS", "0"),
        ]
        for (name, value) in cases {
            let error = refusal([name: value], names: name)
            XCTAssertEqual(error?.value, value, name)
            XCTAssertTrue(error?.description.hasPrefix("\(name)=\(value.debugDescription): ") == true, "\(error.map(String.init(describing:)) ?? "")")
        }
        XCTAssertEqual(refusal(["RATE_LIMIT_IP": "1"], names: "RATE_LIMIT_IP")?.description,
                       #"RATE_LIMIT_IP="1": expected rate,burst (per second, e.g. 20,100) or off"#)
    }

    func testSecretValues_AreNotEchoed() {
        for bad in ["abcd", "zz", String(repeating: "ab", count: 31)] {
            let error = refusal(["SUBSCRIPTION_TICKET_KEY": bad], names: "SUBSCRIPTION_TICKET_KEY")
            XCTAssertNil(error?.value)
            XCTAssertFalse(error?.description.contains(bad) ?? true)
        }
    }

    /// The executable itself: exit status 2 and one line on stderr, before it opens anything.
    func testServer_RefusesToStart_WithOneLine() throws {
        let (status, output) = try runServer(["DATABASE_URL": "postgres://db.invalid/x", "SERVICE_DID": "did:web:x.com",
                                              "TLS_CERT_FILE": "/c.pem", "PORT": "0"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(output, "catbird-mls-server: refusing to start: "
                       + "TLS_KEY_FILE: not set, but TLS_CERT_FILE is: set both to serve TLS, or neither\n")
    }

    /// Without SERVICE_DID (or with it empty) the executable does not start as some default audience.
    func testServer_WithoutServiceDID_RefusesToStart() throws {
        for did in [nil, ""] {
            var environment = ["DATABASE_URL": "postgres://db.invalid/x", "PORT": "0"]
            environment["SERVICE_DID"] = did
            let (status, output) = try runServer(environment)
            XCTAssertEqual(status, 2)
            XCTAssertEqual(output, "catbird-mls-server: refusing to start: SERVICE_DID: not set: the service's own "
                           + "did:web or did:plc is required (make run sets did:web:localhost)\n")
        }
    }

    /// As `make run` starts it without configuration (scripts/run.sh sets the development DID), the
    /// executable says in its log that it runs as the development service DID; configured, it does not.
    func testServer_LogsTheDevelopmentServiceDID() throws {
        let database = try TestDatabase(.database, prefix: "catbird_devdid", poolSize: 1)
        defer { database.drop() }
        for (did, warned) in [(ServiceConfiguration.developmentServiceDID, true), (ServiceHarness.serviceDID, false)] {
            let server = try DurabilityServerProcess(databaseURL: database.url, plcURL: "http://127.0.0.1:9", extra: ["SERVICE_DID": did])
            server.terminate()
            XCTAssertEqual(server.waitForExit()?.status, 0)
            let warning = server.log.first { $0.contains("development service DID") }
            XCTAssertEqual(warning != nil, warned, "\(server.log)")
            if let warning { XCTAssertTrue(warning.contains("\"level\":\"warning\"") && warning.contains(did), warning) }
        }
    }

    /// Runs the built executable with exactly `environment`; its exit status and stderr.
    func runServer(_ environment: [String: String]) throws -> (Int32, String) {
        let (status, _, error) = try runServer(environment, arguments: [])
        return (status, error)
    }

    /// Runs the built executable with `arguments` and exactly `environment`; its exit status, stdout
    /// and stderr.
    func runServer(_ environment: [String: String], arguments: [String]) throws -> (Int32, String, String) {
        let executable = DurabilityServerProcess.executable
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "\(executable) missing: run `swift build --build-tests`"])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // stdout first: --help writes more than a pipe holds; stderr is a line at most.
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }
}
