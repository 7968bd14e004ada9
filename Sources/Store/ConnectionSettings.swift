/// How new connections are opened: the caller's connection string plus defaults it may override.
///
/// The defaults make a connection notice a server host that vanished without a reset (a dead
/// machine, a cut network: docs/operations.md, "High availability"). Unanswered data is given up
/// after `tcp_user_timeout`, and a connection waiting in silence (an idle pooled one, the LISTEN
/// connection, one waiting for a long statement) sends keepalive probes after `keepalives_idle`
/// seconds, every `keepalives_interval`, and is given up after `keepalives_count` unanswered ones.
/// A live server answers probes from its kernel however long a statement runs, so nothing that
/// is merely slow is cut. Without them the kernel waits minutes to hours (tcp_retries2, 2 h of
/// keepalive idle) and so would every request on such a connection.
///
/// There is deliberately no `statement_timeout` here, and the Store never cancels a statement: a
/// COMMIT waiting for a synchronous standby that is cancelled still commits locally, visible to
/// every reader but on no standby and never acknowledged; a failover then loses it.
struct ConnectionSettings: Sendable {
    let parameters: [(String, String)]
    /// For a multi-host URL: the host that took the last connection is tried first.
    let hostOrder: HostOrder?

    static let deadPeerDefaults: [(String, String)] = [
        ("keepalives", "1"),
        ("keepalives_idle", "5"),
        ("keepalives_interval", "1"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "5000"),
    ]

    /// `url` is a `postgresql://` URI or a key=value string, passed to libpq as it is.
    init(url: String, connectTimeout: Double) throws(StoreError) {
        hostOrder = HostOrder(options: try LibPQConnectionInfo.parse(url))
        // libpq treats connect_timeout values below 2 as 2 seconds. With several hosts it applies
        // to each in turn, so a dead host first in the list costs every new connection that long.
        let seconds = max(2, Int(connectTimeout.rounded(.up)))
        parameters = [
            ("connect_timeout", String(seconds)),
            ("application_name", "catbird-mls"),
        ] + Self.deadPeerDefaults + [
            ("dbname", url),
            // Row decoding reads text as UTF-8, so this one is not overridable.
            ("client_encoding", "UTF8"),
        ]
    }

    func connect() throws(StoreError) -> LibPQConnection {
        let connection = try LibPQConnection.connect(parameters: parameters + (hostOrder?.parameters ?? []))
        hostOrder?.connected(host: connection.host, port: connection.port)
        return connection
    }

    /// `connection` broke: its server goes to the end of the hosts' order.
    func lost(_ connection: LibPQConnection) {
        hostOrder?.lost(host: connection.host, port: connection.port)
    }
}
