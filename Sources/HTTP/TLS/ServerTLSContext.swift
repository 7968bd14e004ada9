import COpenSSL

/// One configured server SSL_CTX: TLS 1.2 minimum (1.3 negotiated when the client offers it),
/// ALPN http/1.1, no renegotiation. Immutable once built; a reload builds a new one and sessions
/// already created keep a reference to theirs.
final class ServerTLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; it is never mutated afterwards.
    let context: OpaquePointer

    init(configuration: HTTPServerTLSConfiguration) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .setupFailed("SSL_CTX_new failed") }
        self.context = context
        // RFC 8996: nothing older than TLS 1.2.
        guard copenssl_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw .setupFailed("cannot set the minimum protocol version: \(openSSLErrorDescription())")
        }
        copenssl_SSL_CTX_configure_server(context)
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificateChainFile) == 1 else {
            throw .invalidCredentials("certificate chain \(configuration.certificateChainFile): \(openSSLErrorDescription())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyFile, copenssl_SSL_FILETYPE_PEM()) == 1 else {
            throw .invalidCredentials("private key \(configuration.privateKeyFile): \(openSSLErrorDescription())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .invalidCredentials("the private key does not match the certificate")
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// The oldest queued OpenSSL error as text (and the queue cleared).
func openSSLErrorDescription() -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "unknown OpenSSL error" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
