import Dispatch
import Foundation
import Synchronization

/// An HTTP/1.1 server: N I/O threads with their own epoll instance, plus a worker pool for
/// responders that may block.
public final class HTTPServer: Sendable {
    private struct Running: Sendable {
        let shared: ServerShared
        let handles: [IOLoopHandle]
        let listeners: [Socket]
        let loopsFinished: DispatchGroup
    }

    private enum State: Sendable {
        case idle
        case running(Running)
        case stopped
    }

    public let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    /// Listeners of other protocols on the same loops (`StreamListener`).
    private let streams: [StreamListener]
    private let state = Mutex<State>(.idle)
    private let boundPort = Atomic<Int>(0)
    private let boundStreamPorts = Mutex<[Int]>([])

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, streams: [StreamListener] = []) {
        self.configuration = configuration
        self.responder = responder
        self.streams = streams
    }

    /// The bound port of stream listener `index` (the ephemeral one for port 0); 0 before `start()`.
    public func streamPort(_ index: Int) -> Int {
        boundStreamPorts.withLock { index < $0.count ? $0[index] : 0 }
    }

    /// The bound port (the ephemeral one when configured with port 0); 0 before `start()`.
    public var port: Int {
        boundPort.load(ordering: .acquiring)
    }

    /// Open connections across all I/O threads.
    public var connectionCount: Int {
        state.withLock { state in
            if case let .running(running) = state { return running.shared.connectionCount }
            return 0
        }
    }

    /// Open WebSocket connections across all I/O threads (included in `connectionCount`).
    public var webSocketCount: Int {
        state.withLock { state in
            if case let .running(running) = state { return running.shared.webSocketCount }
            return 0
        }
    }

    /// Binds, spawns the I/O and worker threads, and returns.
    public func start() throws(SocketError) {
        let running = try state.withLock { state throws(SocketError) -> Running? in
            guard case .idle = state else { return nil }
            let running = try launch()
            state = .running(running)
            return running
        }
        guard running != nil else { return }
    }

    private func launch() throws(SocketError) -> Running {
        var tlsContext: ServerTLSContext?
        if let tls = configuration.tls {
            do throws(TLSError) {
                tlsContext = try ServerTLSContext(configuration: tls)
            } catch {
                throw .tls(error)
            }
        }
        let threads = Swift.max(1, configuration.ioThreads)
        if streams.contains(where: \.tls), tlsContext == nil {
            throw .tls(.setupFailed("a stream listener asks for TLS, but the server has no certificate"))
        }
        var listeners: [Socket] = []
        var streamListeners: [Socket] = []
        var handles: [IOLoopHandle] = []
        do throws(SocketError) {
            let first = try Socket.makeListener(
                host: configuration.host, port: configuration.port, backlog: Int32(configuration.listenBacklog),
                reusePort: configuration.reusePort
            )
            listeners.append(first)
            let port = try first.localPort()
            if configuration.reusePort {
                for _ in 1..<threads {
                    listeners.append(try Socket.makeListener(
                        host: configuration.host, port: port, backlog: Int32(configuration.listenBacklog), reusePort: true
                    ))
                }
            }
            for stream in streams {
                streamListeners.append(try Socket.makeListener(
                    host: configuration.host, port: stream.port, backlog: Int32(configuration.listenBacklog), reusePort: false
                ))
            }
            for index in 0..<threads {
                let listener = configuration.reusePort ? listeners[index] : first
                let epoll = try Epoll.make()
                let wakeup: EventFD
                do throws(SocketError) {
                    wakeup = try EventFD.make()
                } catch {
                    epoll.close()
                    throw error
                }
                handles.append(IOLoopHandle(epoll: epoll, wakeup: wakeup, listener: listener, streamListeners: streamListeners))
                try IOLoop.register(listener: listener, streamListeners: streamListeners, wakeup: wakeup, on: epoll,
                                    shared: !configuration.reusePort)
            }
            let streamPorts = try streamListeners.map { socket throws(SocketError) in try socket.localPort() }
            boundStreamPorts.withLock { $0 = streamPorts }
            boundPort.store(port, ordering: .releasing)
        } catch {
            for handle in handles {
                handle.epoll.close()
                handle.wakeup.close()
            }
            listeners.forEach { $0.close() }
            streamListeners.forEach { $0.close() }
            throw error
        }

        // With one shared listener, loops hand accepted connections to the least busy loop.
        let shared = ServerShared(configuration: configuration, responder: responder, tlsContext: tlsContext, streams: streams,
                                  loops: configuration.reusePort ? [] : handles)
        shared.workers.start()
        let loopsFinished = DispatchGroup()
        for (index, handle) in handles.enumerated() {
            loopsFinished.enter()
            let thread = Thread {
                Thread.current.name = "http-io-\(index)"
                IOLoop(handle: handle, shared: shared).run()
                loopsFinished.leave()
            }
            thread.start()
        }
        return Running(shared: shared, handles: handles, listeners: listeners + streamListeners, loopsFinished: loopsFinished)
    }

    /// Reloads the certificate chain and key from the configured files (e.g. on SIGHUP). New
    /// connections use them; open ones keep their session. On error the old context stays in use.
    /// Does nothing when TLS is not configured or the server is not running.
    public func reloadTLS() throws(TLSError) {
        guard let tls = configuration.tls else { return }
        let shared: ServerShared? = state.withLock { state in
            if case let .running(running) = state { return running.shared }
            return nil
        }
        guard let shared else { return }
        shared.replaceTLSContext(try ServerTLSContext(configuration: tls))
    }

    /// Stops accepting, lets in-flight requests finish within `shutdownGracePeriod`, closes every
    /// connection and joins all threads. Safe to call more than once.
    public func shutdown() {
        let running: Running? = state.withLock { state in
            guard case let .running(running) = state else { return nil }
            state = .stopped
            return running
        }
        guard let running else { return }
        running.handles.forEach { $0.requestStop() }
        running.loopsFinished.wait()
        running.shared.workers.shutdown()
        for handle in running.handles {
            handle.epoll.close()
            handle.wakeup.close()
        }
        running.listeners.forEach { $0.close() }
    }
}
