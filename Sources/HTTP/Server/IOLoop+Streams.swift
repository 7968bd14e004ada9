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
        let listener = handle.streamListeners[index]
        let spec = shared.streams[index]
        for _ in 0..<64 {
            let accepted: (socket: Socket, remoteAddress: String)?
            do {
                accepted = try listener.accept()
            } catch {
                // Out of descriptors: stop polling this listener until the next sweep.
                handle.epoll.remove(listener.descriptor)
                suspendedStreamListeners.insert(index)
                return
            }
            guard let (socket, remoteAddress) = accepted else { return }
            guard shared.reserveConnection(from: remoteAddress) else {
                socket.close()
                continue
            }
            var tls: TLSSession?
            if spec.tls {
                guard let context = shared.currentTLSContext, let session = try? TLSSession(context: context) else {
                    shared.releaseConnection(from: remoteAddress)
                    socket.close()
                    continue
                }
                tls = session
            }
            socket.setNoDelay()
            let connection = StreamConnection(socket: socket, tls: tls, serial: nextSerial, remoteAddress: remoteAddress,
                                              limits: limits.transport, now: now)
            nextSerial &+= 1
            let fd = Int(socket.descriptor)
            if fd >= streams.count { streams.append(contentsOf: repeatElement(nil, count: fd + 1 - streams.count)) }
            streams[fd] = connection
            liveConnections += 1
            do {
                let interest = Epoll.readable | Epoll.writable | Epoll.peerHangUp | Epoll.edgeTriggered
                try handle.epoll.add(socket.descriptor, events: interest, data: UInt64(fd) | (connection.serial & 0xFFFF_FFFF) << 32)
            } catch {
                close(connection)
                continue
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
