/// How new connections are opened: the caller's connection string plus defaults it may override.
struct ConnectionSettings: Sendable {
    let parameters: [(String, String)]

    /// `url` is a `postgresql://` URI or a key=value string, passed to libpq as it is.
    init(url: String, connectTimeout: Double) throws(StoreError) {
        _ = try LibPQConnectionInfo.parse(url)
        // libpq treats connect_timeout values below 2 as 2 seconds.
        let seconds = max(2, Int(connectTimeout.rounded(.up)))
        parameters = [
            ("connect_timeout", String(seconds)),
            ("application_name", "catbird-mls"),
            ("dbname", url),
            // Row decoding reads text as UTF-8, so this one is not overridable.
            ("client_encoding", "UTF8"),
        ]
    }

    func connect() throws(StoreError) -> LibPQConnection {
        try LibPQConnection.connect(parameters: parameters)
    }
}
