import DeliveryService
import Foundation

// Configuration comes from the environment only (README, "Configuration").
let configuration: ServiceConfiguration
do {
    configuration = try ServiceConfiguration.fromEnvironment()
} catch {
    FileHandle.standardError.write(Data("catbird-mls-server: \(error)\n".utf8))
    exit(2)
}

let app: DeliveryServiceApp
do {
    app = try DeliveryServiceApp(configuration: configuration)
    try app.start()
} catch {
    FileHandle.standardError.write(Data("catbird-mls-server: cannot start: \(error)\n".utf8))
    exit(1)
}

// SIGTERM / SIGINT: graceful shutdown, then exit.
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let signalQueue = DispatchQueue(label: "signals")
let sources = [SIGTERM, SIGINT].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
    source.setEventHandler {
        app.shutdown()
        exit(0)
    }
    source.resume()
    return source
}
withExtendedLifetime(sources) { dispatchMain() }
