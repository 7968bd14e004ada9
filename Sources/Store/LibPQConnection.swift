import CLibPQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one `PGconn *`. The only type that calls libpq connection functions; not thread-safe,
/// used by one thread at a time.
final class LibPQConnection {
    private let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQfinish(handle) }

    /// Connects with `PQconnectdbParams`, expanding `dbname` as a URI or key=value string.
    /// Later pairs override earlier ones, so defaults go before the caller's string.
    static func connect(parameters: [(String, String)]) throws(StoreError) -> LibPQConnection {
        let keys = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keyPointers = keys.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let handle = PQconnectdbParams(keyPointers, valuePointers, 1) else {
            throw .unavailable("libpq could not allocate a connection")
        }
        let connection = LibPQConnection(handle: handle)
        guard PQstatus(handle) == CONNECTION_OK else { throw .unavailable(connection.errorMessage) }
        connection.host = PQhost(handle).map { String(cString: $0) } ?? ""
        connection.port = PQport(handle).map { String(cString: $0) } ?? ""
        // Notices (e.g. "relation already exists, skipping") would otherwise go to stderr.
        PQsetNoticeReceiver(handle, { _, _ in }, nil)
        return connection
    }

    /// Set when the session was left in a state it cannot be trusted in (a pipeline cut short).
    private var abandoned = false

    var isOK: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }

    /// Marks the connection unusable, so the pool closes it instead of lending it again.
    func abandon() { abandoned = true }

    var errorMessage: String {
        guard let message = PQerrorMessage(handle) else { return "unknown libpq error" }
        return String(cString: message).trimmingTrailingNewlines()
    }

    var backendPID: Int32 { PQbackendPID(handle) }

    /// The host (name or address) and port of the server this connection reached, as libpq
    /// reported them once connected.
    private(set) var host = ""
    private(set) var port = ""

    /// The connection options in effect (`PQconninfo`), by keyword: what the defaults and the URL
    /// made of each.
    var options: [String: String] {
        guard let options = PQconninfo(handle) else { return [:] }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }

    enum TransactionStatus { case idle, active, inTransaction, inError, unknown }

    var transactionStatus: TransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: .idle
        case PQTRANS_ACTIVE: .active
        case PQTRANS_INTRANS: .inTransaction
        case PQTRANS_INERROR: .inError
        default: .unknown
        }
    }

    /// Simple query protocol: several statements allowed, text results, no parameters.
    func exec(_ sql: String) throws(StoreError) -> LibPQResult {
        try check(PQexec(handle, sql))
    }

    func prepare(name: String, sql: String, types: [PGType]) throws(StoreError) -> LibPQResult {
        let oids = types.map(\.rawValue)
        return try check(PQprepare(handle, name, sql, Int32(oids.count), oids.isEmpty ? nil : oids))
    }

    /// Runs a prepared statement; results are always requested in binary format.
    func execPrepared(name: String, bindings: [PGBinding?]) throws(StoreError) -> LibPQResult {
        let result = try withParameters(bindings) { count, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Lays the parameters out for libpq and calls `body` with them: all bytes go in one buffer,
    /// so every pointer stays valid for the call.
    private func withParameters<R>(
        _ bindings: [PGBinding?],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> R
    ) throws(StoreError) -> R {
        var buffer: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for binding in bindings {
            guard let binding else {
                offsets.append(-1)
                lengths.append(0)
                formats.append(PGFormat.text.rawValue)
                continue
            }
            guard let length = Int32(exactly: binding.bytes.count) else {
                throw .queryFailed(sqlState: "54000", message: "parameter of \(binding.bytes.count) bytes is too large")
            }
            if binding.format == .text, binding.bytes.contains(0) {
                // libpq reads text parameters up to the first NUL; PostgreSQL rejects NUL in text.
                throw .queryFailed(sqlState: "22021", message: "text parameter contains a NUL byte")
            }
            offsets.append(buffer.count)
            buffer.append(contentsOf: binding.bytes)
            if binding.format == .text { buffer.append(0) }
            lengths.append(length)
            formats.append(binding.format.rawValue)
        }
        // A non-NULL pointer even for an empty value: NULL would mean SQL NULL.
        buffer.append(0)
        return buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                let base = chars.baseAddress!
                let values: [UnsafePointer<CChar>?] = offsets.map { $0 < 0 ? nil : base + $0 }
                return body(Int32(bindings.count), values, lengths, formats)
            }
        }
    }

    // MARK: Pipeline mode (PostgreSQL manual §34.5)

    func enterPipelineMode() throws(StoreError) {
        guard PQenterPipelineMode(handle) == 1 else { throw failure() }
    }

    /// Leaves pipeline mode; every result must have been read.
    func exitPipelineMode() throws(StoreError) {
        guard PQexitPipelineMode(handle) == 1 else { throw failure() }
    }

    /// Queues a prepared statement in the pipeline (nothing is read here).
    func sendPrepared(name: String, bindings: [PGBinding?]) throws(StoreError) {
        let sent = try withParameters(bindings) { count, values, lengths, formats in
            PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw failure() }
    }

    /// Queues a statement without parameters (BEGIN, COMMIT) through the extended protocol.
    func sendCommand(_ sql: String) throws(StoreError) {
        guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 1) == 1 else { throw failure() }
    }

    /// Marks the end of the pipeline and sends everything queued.
    func pipelineSync() throws(StoreError) {
        guard PQpipelineSync(handle) == 1 else { throw failure() }
    }

    /// The next statement's result in a pipeline: its outcome, after which libpq's NULL separator
    /// has been consumed. A statement skipped because an earlier one failed reports `pipelineAborted`.
    func nextPipelineResult() -> Result<LibPQResult, StoreError> {
        guard let handle = PQgetResult(handle) else { return .failure(failure()) }
        let result = LibPQResult(handle: handle)
        // Each statement's results end with a NULL.
        while let extra = PQgetResult(self.handle) { PQclear(extra) }
        if result.isPipelineAborted {
            return .failure(.queryFailed(sqlState: "25P02", message: "skipped: an earlier statement of the pipeline failed"))
        }
        guard result.isSuccess else { return .failure(result.error(connectionOK: isOK)) }
        return .success(result)
    }

    /// Reads the sync point's marker that ends a pipeline; false when the connection broke.
    func readPipelineSync() -> Bool {
        guard let handle = PQgetResult(handle) else { return false }
        defer { PQclear(handle) }
        return PQresultStatus(handle) == PGRES_PIPELINE_SYNC
    }

    private func failure() -> StoreError {
        isOK ? .queryFailed(sqlState: "", message: errorMessage) : .unavailable(errorMessage)
    }

    private func check(_ result: OpaquePointer?) throws(StoreError) -> LibPQResult {
        guard let result else {
            let message = errorMessage
            throw isOK ? .queryFailed(sqlState: "", message: message) : .unavailable(message)
        }
        let wrapped = LibPQResult(handle: result)
        guard wrapped.isSuccess else { throw wrapped.error(connectionOK: isOK) }
        return wrapped
    }

    /// For an idle pooled connection: true if it looks usable. Such a connection is sent nothing
    /// unasked (it does not LISTEN), so any pending input is the server's FATAL message or EOF
    /// after its backend was terminated, and the connection is given up without reading it.
    func isAliveWhileIdle() -> Bool {
        guard isOK else { return false }
        if case .timedOut = waitForInput(timeout: 0) { return true }
        return false
    }

    enum WaitResult { case readable, timedOut, failed(String) }

    /// Waits until the socket is readable (or closed) or `timeout` seconds pass.
    func waitForInput(timeout: Double) -> WaitResult {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return .failed("connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 3_600)) * 1_000)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return .readable }
            if ready == 0 { return .timedOut }
            if errno != EINTR { return .failed("poll: \(String(cString: strerror(errno)))") }
        }
    }

    /// Reads available input; false when the connection broke.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 }

    /// Notifications received so far (after `consumeInput` or a query).
    func takeNotifications() -> [PGNotification] {
        var received: [PGNotification] = []
        while let pointer = PQnotifies(handle) {
            let notify = pointer.pointee
            received.append(PGNotification(
                channel: String(cString: notify.relname),
                payload: String(cString: notify.extra),
                processID: notify.be_pid))
            PQfreemem(pointer)
        }
        return received
    }

    /// Quotes an identifier (e.g. a LISTEN channel) with `PQescapeIdentifier`.
    func escapeIdentifier(_ identifier: String) throws(StoreError) -> String {
        let utf8 = Array(identifier.utf8)
        guard let escaped = PQescapeIdentifier(handle, identifier, utf8.count) else {
            throw .queryFailed(sqlState: "42602", message: errorMessage)
        }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
