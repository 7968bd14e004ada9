import COpenSSL

/// The shared client context: TLS 1.2+, peer verification against the system trust store.
final class HTTPClientTLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; it is never mutated afterwards.
    let context: OpaquePointer

    static let shared: Result<HTTPClientTLSContext, HTTPClientError> = Result { () throws(HTTPClientError) in
        try HTTPClientTLSContext(extraTrustAnchorPEM: nil)
    }

    /// `extraTrustAnchorPEM` adds one certificate to the system trust store: tests only.
    init(extraTrustAnchorPEM: [UInt8]?) throws(HTTPClientError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("SSL_CTX_new failed") }
        self.context = context
        guard copenssl_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
              SSL_CTX_set_default_verify_paths(context) == 1
        else { throw .tls("cannot configure client context: \(httpClientOpenSSLError())") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let pem = extraTrustAnchorPEM {
            let bio = pem.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
            defer { BIO_free(bio) }
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { throw .tls("bad trust anchor PEM") }
            defer { X509_free(certificate) }
            guard X509_STORE_add_cert(SSL_CTX_get_cert_store(context), certificate) == 1 else {
                throw .tls("cannot add trust anchor: \(httpClientOpenSSLError())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// A TLS session over an `HTTPClientSocket`. OpenSSL talks to memory BIOs and this type moves
/// the bytes, so every socket wait honours the deadline and writes never raise SIGPIPE.
final class HTTPClientTLSConnection {
    private let socket: HTTPClientSocket
    private let ssl: OpaquePointer
    private let networkIn: OpaquePointer   // bytes from the peer, for OpenSSL to read
    private let networkOut: OpaquePointer  // bytes OpenSSL wants sent
    private var peerClosed = false

    init(socket: HTTPClientSocket, host: String, hostIsIPLiteral: Bool, context: HTTPClientTLSContext,
         deadline: HTTPClientDeadline) throws(HTTPClientError) {
        guard let ssl = SSL_new(context.context) else { throw .tls("SSL_new failed") }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tls("BIO_new failed")
        }
        SSL_set_bio(ssl, networkIn, networkOut) // the SSL object now owns both BIOs
        self.socket = socket
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut

        // RFC 6066 §3: no SNI for IP literals. RFC 6125: verify the name the caller asked for.
        let param = SSL_get0_param(ssl)
        X509_VERIFY_PARAM_set_hostflags(param, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        if hostIsIPLiteral {
            guard X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1 else { throw .tls("bad IP for verification") }
        } else {
            guard copenssl_SSL_set_tlsext_host_name(ssl, host) == 1,
                  X509_VERIFY_PARAM_set1_host(param, host, 0) == 1
            else { throw .tls("cannot set host name") }
        }
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        SSL_set_connect_state(ssl)

        _ = try drive(deadline: deadline) { SSL_do_handshake($0) }
        guard SSL_get_verify_result(ssl) == X509_V_OK else { throw .tls("certificate verification failed") }
    }

    deinit { SSL_free(ssl) }

    func writeAll(_ bytes: [UInt8], deadline: HTTPClientDeadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = try drive(deadline: deadline) { ssl in
                bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
            }
            offset += Int(written)
        }
    }

    /// Up to `maxCount` plaintext bytes; empty at the end of the stream.
    func read(maxCount: Int, deadline: HTTPClientDeadline) throws(HTTPClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        let count = try drive(deadline: deadline, endOfStreamIsZero: true) { ssl in
            buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        }
        return Array(buffer.prefix(Int(count)))
    }

    /// Runs one OpenSSL operation to completion, shuttling ciphertext between the memory BIOs
    /// and the socket until it stops asking for more input.
    private func drive(deadline: HTTPClientDeadline, endOfStreamIsZero: Bool = false,
                       _ operation: (OpaquePointer) -> Int32) throws(HTTPClientError) -> Int32 {
        while true {
            ERR_clear_error()
            let result = operation(ssl)
            try flushOutput(deadline: deadline)
            if result > 0 { return result }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ:
                if peerClosed {
                    if endOfStreamIsZero { return 0 }
                    throw .tls("connection closed during TLS exchange")
                }
                let ciphertext = try socket.read(maxCount: 16 * 1024, deadline: deadline)
                if ciphertext.isEmpty {
                    peerClosed = true
                } else {
                    let accepted = ciphertext.withUnsafeBytes { BIO_write(networkIn, $0.baseAddress, Int32($0.count)) }
                    guard accepted == Int32(ciphertext.count) else { throw .tls("BIO_write failed") }
                }
            case SSL_ERROR_WANT_WRITE:
                continue
            case SSL_ERROR_ZERO_RETURN where endOfStreamIsZero:
                return 0
            default:
                throw .tls(httpClientOpenSSLError())
            }
        }
    }

    private func flushOutput(deadline: HTTPClientDeadline) throws(HTTPClientError) {
        while BIO_ctrl_pending(networkOut) > 0 {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { BIO_read(networkOut, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            try socket.writeAll(Array(chunk.prefix(Int(count))), deadline: deadline)
        }
    }
}

private func httpClientOpenSSLError() -> String {
    let code = ERR_get_error()
    guard code != 0 else { return "unknown OpenSSL error" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
