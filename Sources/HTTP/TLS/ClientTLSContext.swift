import COpenSSL

/// The client SSL_CTX: TLS 1.2+, peer verification against the system trust store. Immutable once
/// configured, so one context serves every request.
package final class ClientTLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; it is never mutated afterwards.
    package let context: OpaquePointer

    package static let shared: Result<ClientTLSContext, TLSError> = Result { () throws(TLSError) in
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

    /// Trusts exactly the certificates of `trustedCertificatesPEM` (one or more PEM blocks), not the
    /// system's: a private or test host's own CA.
    package init(trustedCertificatesPEM pem: [UInt8]) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .setupFailed("SSL_CTX_new failed") }
        self.context = context
        guard copenssl_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw .setupFailed("cannot configure the client context: \(openSSLErrorDescription())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let bio = pem.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        defer { BIO_free(bio) }
        var count = 0
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            defer { X509_free(certificate) }
            guard X509_STORE_add_cert(SSL_CTX_get_cert_store(context), certificate) == 1 else {
                throw .invalidCredentials("cannot add a trusted certificate: \(openSSLErrorDescription())")
            }
            count += 1
        }
        // The loop ends at the end of the input with "no start line" queued: not an error.
        ERR_clear_error()
        guard count > 0 else { throw .invalidCredentials("no PEM certificate found") }
    }

    deinit { SSL_CTX_free(context) }
}

extension TLSSession {
    /// The client side of a connection to `host`: SNI and an RFC 6125 name check, or for an IP
    /// literal an IP check and no SNI (RFC 6066 §3). The handshake fails unless the chain verifies.
    /// `alpn` offers protocols in the wire format of RFC 7301 §3.1 (`\u{2}h2`).
    convenience init(client context: ClientTLSContext, host: String, hostIsIPLiteral: Bool, alpn: [UInt8]? = nil) throws(TLSError) {
        try self.init(sslContext: context.context) { ssl throws(TLSError) in
            if let alpn {
                // SSL_set_alpn_protos returns 0 on success.
                guard alpn.withUnsafeBufferPointer({ copenssl_SSL_set_alpn(ssl, $0.baseAddress, UInt32($0.count)) }) == 0 else {
                    throw .setupFailed("cannot offer ALPN")
                }
            }
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

    /// The protocol the server chose by ALPN (RFC 7301), if any.
    var selectedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }
}
