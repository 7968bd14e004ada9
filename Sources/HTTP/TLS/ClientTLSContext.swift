import COpenSSL

/// The client SSL_CTX: TLS 1.2+, peer verification against the system trust store. Immutable once
/// configured, so one context serves every request.
final class ClientTLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; it is never mutated afterwards.
    let context: OpaquePointer

    static let shared: Result<ClientTLSContext, TLSError> = Result { () throws(TLSError) in
        try ClientTLSContext(extraTrustAnchorPEM: nil)
    }

    /// `extraTrustAnchorPEM` adds one certificate to the system trust store: tests only.
    init(extraTrustAnchorPEM: [UInt8]?) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .setupFailed("SSL_CTX_new failed") }
        self.context = context
        // RFC 8996: nothing older than TLS 1.2.
        guard copenssl_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
              SSL_CTX_set_default_verify_paths(context) == 1
        else { throw .setupFailed("cannot configure the client context: \(openSSLErrorDescription())") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let pem = extraTrustAnchorPEM {
            let bio = pem.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
            defer { BIO_free(bio) }
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { throw .invalidCredentials("bad trust anchor PEM") }
            defer { X509_free(certificate) }
            guard X509_STORE_add_cert(SSL_CTX_get_cert_store(context), certificate) == 1 else {
                throw .invalidCredentials("cannot add the trust anchor: \(openSSLErrorDescription())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }
}

extension TLSSession {
    /// The client side of a connection to `host`: SNI and an RFC 6125 name check, or for an IP
    /// literal an IP check and no SNI (RFC 6066 §3). The handshake fails unless the chain verifies.
    convenience init(client context: ClientTLSContext, host: String, hostIsIPLiteral: Bool) throws(TLSError) {
        try self.init(sslContext: context.context) { ssl throws(TLSError) in
            let param = SSL_get0_param(ssl)
            X509_VERIFY_PARAM_set_hostflags(param, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            if hostIsIPLiteral {
                guard X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1 else { throw .setupFailed("bad IP for verification") }
            } else {
                guard copenssl_SSL_set_tlsext_host_name(ssl, host) == 1, X509_VERIFY_PARAM_set1_host(param, host, 0) == 1 else {
                    throw .setupFailed("cannot set the host name")
                }
            }
            SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
            SSL_set_connect_state(ssl)
        }
    }

    /// Whether the peer's certificate chain and name verified.
    var peerVerified: Bool { SSL_get_verify_result(ssl) == X509_V_OK }
}
