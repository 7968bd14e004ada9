import Foundation
import HTTP
import MQTT
import MQTTServer
import Synchronization

/// A broker for the listener's tests: accepts user name `ok` (any other is 0x86), answers every
/// publish at once (topics under `refuse/` get 0x87), grants every subscription, and hands each
/// publish to the subscribers of its exact topic on this server. No service logic: what is tested is
/// the listener (sockets, TLS, the state machine's glue).
final class LoopbackBroker: MQTTBroker, Sendable {
    let configuration: MQTTServerConfiguration
    private struct State {
        var subscribers: [String: [ObjectIdentifier: MQTTLink]] = [:]
        var nextID: UInt64 = 1
        var closed = 0
        var sessionEnds: [SessionEnd] = []
        /// While set, a connection that handed over a publish takes no more input.
        var holdingInput = false
        var publishes = 0
        var links: [MQTTLink] = []
    }
    private let state = Mutex(State())

    /// Publishes handed to the broker so far.
    var publishCount: Int { state.withLock { $0.publishes } }

    /// While `hold`, each connection that handed over a publish reads no more (its delegate's
    /// `acceptsInput` is false); releasing tells every connection to read on.
    func holdInput(_ hold: Bool) {
        let links = state.withLock { state in
            state.holdingInput = hold
            return state.links
        }
        if !hold { for link in links { link.resumeInput() } }
    }

    init(configuration: MQTTServerConfiguration = MQTTServerConfiguration()) {
        self.configuration = configuration
    }

    var closedCount: Int { state.withLock { $0.closed } }
    var sessionEnds: [SessionEnd] { state.withLock { $0.sessionEnds } }

    func open(_ link: MQTTLink) -> any MQTTConnectionDelegate {
        Delegate(broker: self, link: link)
    }

    final class Delegate: MQTTConnectionDelegate {
        let broker: LoopbackBroker
        let link: MQTTLink
        var topics: [String] = []
        var published = false
        var acceptsInput: Bool { !(published && broker.state.withLock { $0.holdingInput }) }

        init(broker: LoopbackBroker, link: MQTTLink) {
            self.broker = broker
            self.link = link
            broker.state.withLock { $0.links.append(link) }
        }

        func perform(_ action: MQTTServerAction) {
            let link = link
            switch action {
            case .authenticate(let request):
                // As a real service would: on another thread.
                DispatchQueue.global().async {
                    if request.userName == "ok" {
                        link.post(.authenticated(.accepted(SessionGrant())))
                    } else {
                        link.post(.authenticated(.refused(reasonCode: .badUserNameOrPassword, reasonString: "who are you")))
                    }
                }
            case .publish(let publish):
                published = true
                broker.state.withLock { $0.publishes += 1 }
                if let identifier = publish.packetIdentifier {
                    if publish.message.topic.value.hasPrefix("refuse/") {
                        link.post(.publishRefused(packetIdentifier: identifier, reasonCode: .notAuthorized, reasonString: "refused"))
                    } else {
                        link.post(.publishAccepted(packetIdentifier: identifier))
                    }
                }
                broker.fanOut(publish.message)
            case let .subscribe(identifier, requests):
                for request in requests {
                    topics.append(request.topicFilter.value)
                    broker.add(link, to: request.topicFilter.value)
                }
                link.post(.subscribed(packetIdentifier: identifier, reasonCodes: requests.map { _ in .grantedQoS1 }))
            case let .unsubscribe(identifier, filters):
                link.post(.unsubscribed(packetIdentifier: identifier, reasonCodes: filters.map { _ in .success }))
            case .sessionDisconnected(let end):
                broker.state.withLock { $0.sessionEnds.append(end) }
            default:
                break
            }
        }

        func closed() {
            for topic in topics { broker.remove(link, from: topic) }
            broker.state.withLock { $0.closed += 1 }
        }
    }

    private func add(_ link: MQTTLink, to topic: String) {
        state.withLock { $0.subscribers[topic, default: [:]][ObjectIdentifier(link)] = link }
    }

    private func remove(_ link: MQTTLink, from topic: String) {
        _ = state.withLock { $0.subscribers[topic]?.removeValue(forKey: ObjectIdentifier(link)) }
    }

    private func fanOut(_ message: ApplicationMessage) {
        let (links, id) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            return (Array((state.subscribers[message.topic.value] ?? [:]).values), id)
        }
        for link in links { link.post(.deliver(OutboundMessage(id: id, message: message))) }
    }
}

/// A server with only the MQTT listener in use (its HTTP port answers nothing of interest).
final class LoopbackMQTTServer {
    let server: HTTPServer
    let broker: LoopbackBroker

    init(broker: LoopbackBroker = LoopbackBroker(), tls: HTTPServerTLSConfiguration? = nil) throws {
        self.broker = broker
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 2, shutdownGracePeriod: 2)
        configuration.tls = tls
        server = HTTPServer(configuration: configuration, responder: NoResponder(),
                            streams: [StreamListener(port: 0, tls: tls != nil, service: MQTTListener(broker: broker))])
        try server.start()
    }

    var port: Int { server.streamPort(0) }

    func shutdown() { server.shutdown() }

    struct NoResponder: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 404) }
    }
}
