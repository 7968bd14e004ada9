/// Stream listeners on the same loop: accepting, TLS, lookups, timeouts and draining for
/// `StreamConnection`s, beside the HTTP connections.
extension IOLoop {
    func stream(for descriptor: Int32) -> StreamConnection? {
        let index = Int(descriptor)
        guard index >= 0, index < streams.count else { return nil }
        return streams[index]
    }

    func acceptStreams(listener index: Int) {
        guard index < handle.streamListeners.count, index < shared.streams.count, !isDraining else { return }
        let spec = shared.streams[index]
        acceptPending(from: handle.streamListeners[index], onExhausted: { suspendedStreamListeners.insert(index) }) { socket, remoteAddress in
            guard shared.reserveConnection(from: remoteAddress) else {
                socket.close()
                return
            }
            let tls: TLSSession?
            do {
                tls = try prepareAccepted(socket, remoteAddress: remoteAddress, wantsTLS: spec.tls, context: shared.currentTLSContext)
            } catch { return }
            let connection = StreamConnection(socket: socket, tls: tls, serial: nextSerial, remoteAddress: remoteAddress,
                                              limits: limits.transport, now: now)
            nextSerial &+= 1
            let fd = Int(socket.descriptor)
            if fd >= streams.count { streams.append(contentsOf: repeatElement(nil, count: fd + 1 - streams.count)) }
            streams[fd] = connection
            liveConnections += 1
            do { try register(socket, serial: connection.serial) } catch {
                close(connection)
                return
            }
            let connectionHandle = StreamConnectionHandle(handle: handle, descriptor: socket.descriptor, serial: connection.serial,
                                                          remoteAddress: remoteAddress)
            connection.start(spec.service, handle: connectionHandle, loop: self)
        }
    }

    func close(_ connection: StreamConnection) {
        guard !connection.isClosed else { return }
        let fd = Int(connection.socket.descriptor)
        connection.socket.close()
        streams[fd] = nil
        liveConnections -= 1
        shared.releaseConnection(from: connection.remoteAddress)
        // Last: the session learns it is closed once the descriptor is gone.
        connection.markClosed(now: now)
    }

    func sweepStreams() {
        for case let stream? in streams {
            stream.checkTimeouts(loop: self)
        }
        guard !isDraining else { return }
        for index in suspendedStreamListeners {
            let listener = handle.streamListeners[index]
            let token = Self.streamListenerBase - UInt64(index)
            if (try? handle.epoll.add(listener.descriptor, events: Epoll.readable | Epoll.exclusive, data: token)) != nil {
                suspendedStreamListeners.remove(index)
            }
        }
    }

    func drainStreams() {
        for listener in handle.streamListeners { handle.epoll.remove(listener.descriptor) }
        for case let stream? in streams {
            stream.beginDraining(loop: self)
        }
    }
}
