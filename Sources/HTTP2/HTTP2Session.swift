import CNGHTTP2

/// What a session reports while it reads frames.
protocol HTTP2SessionDelegate: AnyObject {
    /// A header field of the response on `stream` (`:status` included).
    func session(_ session: HTTP2Session, stream: Int32, header name: [UInt8], value: [UInt8]) -> Bool
    /// Bytes of the response body on `stream`; false resets the stream (too large).
    func session(_ session: HTTP2Session, stream: Int32, data: UnsafeRawBufferPointer) -> Bool
    /// `stream` ended: `errorCode` 0 when it ended normally (RFC 9113 §7).
    func session(_ session: HTTP2Session, closed stream: Int32, errorCode: UInt32)
    /// The peer acknowledged our PING.
    func sessionReceivedPingAck(_ session: HTTP2Session)
    /// The peer sent GOAWAY: streams after `lastStream` will not be processed.
    func session(_ session: HTTP2Session, goAway lastStream: Int32, errorCode: UInt32)
}

/// The one file that touches libnghttp2: a client session driven without sockets (RFC 9113 as
/// nghttp2 implements it). Bytes from the peer go in through `receive`, bytes for the peer come out
/// of `pendingOutput`; everything else is reported to the delegate from inside those calls. Used by
/// one thread at a time.
final class HTTP2Session {
    private var session: OpaquePointer?
    weak var delegate: HTTP2SessionDelegate?
    /// Request bodies not yet taken by nghttp2, by stream.
    private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]

    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: nghttp2_strerror(code)) }
    }

    /// A client session with our SETTINGS queued: push off (RFC 9113 §6.5.2), at most
    /// `maxConcurrentStreams` streams the peer may open (none: it is a client), and a header list
    /// limit for responses.
    init() throws(Failure) {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw Failure(code: NGHTTP2_ERR_NOMEM.rawValue) }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, cnghttp2_frame_type(frame) == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            let session = HTTP2Session.from(user)
            let accepted = session.delegate?.session(session, stream: cnghttp2_frame_stream_id(frame),
                                                     header: Array(UnsafeBufferPointer(start: name, count: nameLength)),
                                                     value: Array(UnsafeBufferPointer(start: value, count: valueLength))) ?? false
            return accepted ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, user in
            let session = HTTP2Session.from(user)
            let accepted = session.delegate?.session(session, stream: stream, data: UnsafeRawBufferPointer(start: data, count: length)) ?? false
            if !accepted, let raw = session.session {
                _ = nghttp2_submit_rst_stream(raw, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, errorCode, user in
            let session = HTTP2Session.from(user)
            session.bodies[stream] = nil
            session.delegate?.session(session, closed: stream, errorCode: errorCode)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let session = HTTP2Session.from(user)
            switch UInt32(cnghttp2_frame_type(frame)) {
            case NGHTTP2_PING.rawValue where cnghttp2_frame_flags(frame) & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
                session.delegate?.sessionReceivedPingAck(session)
            case NGHTTP2_GOAWAY.rawValue:
                session.delegate?.session(session, goAway: cnghttp2_goaway_last_stream_id(frame), errorCode: cnghttp2_goaway_error_code(frame))
            default:
                break
            }
            return 0
        }
        var created: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new(&created, callbacks, user) == 0, let created else { throw Failure(code: NGHTTP2_ERR_NOMEM.rawValue) }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: 16 << 10),
        ]
        let submitted = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        guard submitted == 0 else { throw Failure(code: submitted) }
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Queues a request (`:method`, `:scheme`, `:authority`, `:path`, then `headers`, then `body`);
    /// returns its stream id.
    func submit(method: String, authority: String, path: String, headers: [(String, String)], body: [UInt8]) throws(Failure) -> Int32 {
        guard let session else { throw Failure(code: NGHTTP2_ERR_INVALID_STATE.rawValue) }
        let fields = [(":method", method), (":scheme", "https"), (":authority", authority), (":path", path)]
            + headers.map { ($0.0.lowercased(), $0.1) }
        // nghttp2 copies names and values before submit returns (no NO_COPY flags).
        let storage = fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        let stream: Int32 = Self.withFields(storage) { fields in
            var provider = nghttp2_data_provider()
            provider.read_callback = { _, stream, buffer, length, flags, _, user in
                let session = HTTP2Session.from(user)
                guard let body = session.bodies[stream], let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let count = min(length, body.bytes.count - body.offset)
                body.bytes.withUnsafeBytes { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + body.offset, byteCount: count)
                }
                session.bodies[stream]!.offset += count
                if body.offset + count == body.bytes.count { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
                return count
            }
            return body.isEmpty
                ? nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, nil, nil)
                : nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, &provider, nil)
        }
        guard stream > 0 else { throw Failure(code: stream) }
        if !body.isEmpty { bodies[stream] = (body, 0) }
        return stream
    }

    /// `fields` as nghttp2_nv, valid inside `body`.
    private static func withFields<R>(_ fields: [([UInt8], [UInt8])], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> R) -> R {
        var names = fields.map { $0.0 }
        var values = fields.map { $0.1 }
        return names.withUnsafeMutableBufferPointer { names in
            values.withUnsafeMutableBufferPointer { values in
                withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(fields.count, 1)) { entries in
                    for index in fields.indices {
                        entries[index] = names[index].withUnsafeMutableBufferPointer { name in
                            values[index].withUnsafeMutableBufferPointer { value in
                                nghttp2_nv(name: name.baseAddress, value: value.baseAddress, namelen: name.count,
                                           valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                            }
                        }
                    }
                    return body(UnsafeMutableBufferPointer(rebasing: entries[0..<fields.count]))
                }
            }
        }
    }

    /// Feeds bytes from the peer; the delegate hears what they complete. Throws on a protocol error
    /// (the connection is then unusable).
    func receive(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard let session else { throw Failure(code: NGHTTP2_ERR_INVALID_STATE.rawValue) }
        let read = nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard read >= 0 else { throw Failure(code: Int32(read)) }
    }

    /// Frames ready for the peer, up to about `limit` bytes; empty when nothing is queued.
    func pendingOutput(limit: Int) throws(Failure) -> [UInt8] {
        guard let session else { return [] }
        var out: [UInt8] = []
        while out.count < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count >= 0 else { throw Failure(code: Int32(count)) }
            guard count > 0, let data else { break }
            out.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        return out
    }

    /// Queues a PING (RFC 9113 §6.7) with 8 opaque bytes of nghttp2's.
    func ping() throws(Failure) {
        guard let session else { return }
        let result = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        guard result == 0 else { throw Failure(code: result) }
    }

    /// Resets `stream` (CANCEL): its request was given up.
    func cancel(_ stream: Int32) {
        guard let session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
    }

    /// Queues GOAWAY (NO_ERROR): no new streams; those open may finish.
    func goAway() {
        guard let session else { return }
        _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
    }

    /// SETTINGS_MAX_CONCURRENT_STREAMS as the peer set it (unbounded until it says).
    var peerMaxConcurrentStreams: Int {
        guard let session else { return 0 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Whether the session still wants to read or write (false once both sides said GOAWAY and no
    /// stream is open).
    var isActive: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }
}
