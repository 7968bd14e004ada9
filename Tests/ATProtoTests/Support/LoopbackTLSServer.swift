import TestSupport
import COpenSSL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TLS 1.2+/HTTP/1.1 server on 127.0.0.1 with a self-signed P-256 certificate for the name
/// `localhost`, made in-process. It answers every request with one chunked JSON body and records
/// the SNI name of each handshake, so the client's certificate and host-name checks can be tested.
final class LoopbackTLSServer: @unchecked Sendable {
    // The OpenSSL objects are created in init and only read afterwards (SSL_CTX is thread-safe).
    let port: UInt16
    let certificatePEM: [UInt8]
    let body = "{\"id\":\"did:web:localhost\",\"tls\":true}"
    private let listener: Int32
    private let context: OpaquePointer
    private let serverNames = Mutex<[String]>([])
    private let handshakeFailures = Mutex(0)

    init() throws {
        guard let keyContext = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw POSIXError(.ENOMEM) }
        defer { EVP_PKEY_CTX_free(keyContext) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(keyContext) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(keyContext, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(keyContext, &key) == 1, let key
        else { throw POSIXError(.EINVAL) }
        defer { EVP_PKEY_free(key) }

        guard let certificate = X509_new() else { throw POSIXError(.ENOMEM) }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1)
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), 86400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "localhost", -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        var extensionContext = X509V3_CTX()
        X509V3_set_ctx(&extensionContext, certificate, certificate, nil, nil, 0)
        guard let subjectAltName = X509V3_EXT_conf_nid(nil, &extensionContext, NID_subject_alt_name, "DNS:localhost") else {
            throw POSIXError(.EINVAL)
        }
        X509_add_ext(certificate, subjectAltName, -1)
        X509_EXTENSION_free(subjectAltName)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw POSIXError(.EINVAL) }

        let bio = BIO_new(BIO_s_mem())
        defer { BIO_free(bio) }
        PEM_write_bio_X509(bio, certificate)
        var pem = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let count = pem.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        certificatePEM = Array(pem.prefix(Int(count)))

        guard let context = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_certificate(context, certificate) == 1,
              SSL_CTX_use_PrivateKey(context, key) == 1
        else { throw POSIXError(.EINVAL) }
        self.context = context
        (listener, port) = try LoopbackHTTPServer.listenOnLoopback()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { SSL_CTX_free(context) }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    /// SNI names of the completed handshakes, in order.
    var receivedServerNames: [String] { serverNames.withLock { $0 } }
    var failedHandshakes: Int { handshakeFailures.withLock { $0 } }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let ssl = SSL_new(context) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, connection)
        guard SSL_accept(ssl) == 1 else {
            handshakeFailures.withLock { $0 += 1 }
            return
        }
        if let serverName = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) {
            let name = String(cString: serverName)
            serverNames.withLock { $0.append(name) }
        } else {
            serverNames.withLock { $0.append("") }
        }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 65536, !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            request += buffer.prefix(Int(count))
        }
        let half = body.utf8.count / 2
        let first = String(body.prefix(half)), second = String(body.dropFirst(half))
        let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(first.utf8.count, radix: 16) + "\r\n" + first + "\r\n"
            + String(second.utf8.count, radix: 16) + "\r\n" + second + "\r\n0\r\n\r\n"
        _ = Array(response.utf8).withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        SSL_shutdown(ssl)
    }
}
