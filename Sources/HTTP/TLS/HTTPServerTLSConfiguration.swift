/// TLS termination settings: PEM files read at start and again on `HTTPServer.reloadTLS()`.
public struct HTTPServerTLSConfiguration: Sendable, Equatable {
    /// The leaf certificate followed by its intermediates, PEM.
    public var certificateChainFile: String
    /// The private key of the leaf certificate, PEM (unencrypted).
    public var privateKeyFile: String
    /// Time a new connection has to complete the TLS handshake, in seconds.
    public var handshakeTimeout: Double

    public init(certificateChainFile: String, privateKeyFile: String, handshakeTimeout: Double = 10) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.handshakeTimeout = handshakeTimeout
    }
}

/// Why TLS could not be set up.
public enum TLSError: Error, Sendable, Equatable {
    /// The certificate chain or key could not be loaded, or they do not match.
    case invalidCredentials(String)
    /// OpenSSL refused to create a context or session.
    case setupFailed(String)
}
