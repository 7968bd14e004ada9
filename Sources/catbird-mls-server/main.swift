import DeliveryService
import Foundation
import Synchronization

// Configuration comes from the environment only (docs/configuration.md); the one argument is for
// reading about it. `--configuration-markdown` prints the generated part of docs/configuration.md.
switch CommandLine.arguments.dropFirst().first {
case nil:
    break
case "--help", "-h":
    FileHandle.standardOutput.write(Data(ConfigurationDocument.help.utf8))
    exit(0)
case "--configuration-markdown":
    FileHandle.standardOutput.write(Data(ConfigurationDocument.markdown.utf8))
    exit(0)
case let argument?:
    FileHandle.standardError.write(Data("catbird-mls-server: unknown argument \(argument.debugDescription): settings come from the environment (see --help)\n".utf8))
    exit(2)
}

let configuration: ServiceConfiguration
do {
    configuration = try ServiceConfiguration.fromEnvironment()
} catch {
    // One line naming the variable; the service does not start on a half-understood configuration.
    FileHandle.standardError.write(Data("catbird-mls-server: refusing to start: \(error)\n".utf8))
    exit(2)
}

let app: DeliveryServiceApp
do {
    app = try DeliveryServiceApp(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("catbird-mls-server: cannot start: \(error)\n".utf8))
    exit(1)
}

// SIGTERM / SIGINT: stop accepting, let in-flight requests finish within SHUTDOWN_GRACE_PERIOD,
// stop the background jobs, close the database, exit 0. A second signal during that exits at once (1).
// SIGHUP: re-read TLS_CERT_FILE / TLS_KEY_FILE (certificate rotation without a restart).
for number in [SIGTERM, SIGINT, SIGHUP] { signal(number, SIG_IGN) }
let shuttingDown = Atomic<Bool>(false)
let signalQueue = DispatchQueue(label: "signals")
let sources = [SIGTERM, SIGINT, SIGHUP].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
    source.setEventHandler {
        if number == SIGHUP {
            guard app.servesTLS else {
                app.log.info("SIGHUP received; no TLS certificate to reload")
                return
            }
            do {
                try app.reloadTLS()
                app.log.info("TLS certificate reloaded")
            } catch {
                app.log.error("TLS reload failed; the previous certificate stays in use", ["error": "\(error)"])
            }
            return
        }
        guard !shuttingDown.exchange(true, ordering: .relaxed) else {
            app.log.warning("second signal during shutdown, exiting now")
            exit(1)
        }
        app.log.info("signal received", ["signal": number == SIGTERM ? "SIGTERM" : "SIGINT"])
        // On a thread of its own, so that a second signal is still handled while this waits.
        Thread.detachNewThread {
            app.shutdown()
            exit(0)
        }
    }
    source.resume()
    return source
}

// Only now, with every handler in place, does the port open (and "listening" get logged).
do {
    try app.start()
} catch {
    FileHandle.standardError.write(Data("catbird-mls-server: cannot start: \(error)\n".utf8))
    exit(1)
}
withExtendedLifetime(sources) { dispatchMain() }
