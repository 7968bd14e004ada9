/// Every failure the Store layer reports. Callers match on the case; the HTTP layer maps
/// `.unavailable` and `.poolTimeout` to 503 and the constraint cases to conflicts.
public enum StoreError: Error, Sendable, Equatable {
    /// The database cannot be reached or the connection broke (SQLSTATE class 08, 57P01–57P03,
    /// 53300, 25006 from a standby, or a libpq-level connection failure). Safe to report as 503.
    case unavailable(String)
    /// Every pooled connection stayed busy for the whole checkout timeout.
    case poolTimeout
    /// 23505; `constraint` names the unique index or constraint that was violated.
    case uniqueViolation(constraint: String?)
    /// 23503.
    case foreignKeyViolation(constraint: String?)
    /// 23514.
    case checkViolation(constraint: String?)
    /// 40001, after the transaction's retries were used up (or outside `Database.transaction`).
    case serializationFailure
    /// 40P01, after the transaction's retries were used up (or outside `Database.transaction`).
    case deadlockDetected
    /// Any other server error.
    case queryFailed(sqlState: String, message: String)
    /// A result cell could not be read as the requested Swift type.
    case decoding(String)
    /// A migration file failed; `file` is its name, `message` the server's error.
    case migrationFailed(file: String, message: String)
    /// The connection string or another setting is malformed.
    case invalidConfiguration(String)
}

extension StoreError {
    /// Whether `Database.transaction` retries a transaction that failed with this error.
    public var isTransient: Bool {
        switch self {
        case .serializationFailure, .deadlockDetected: true
        default: false
        }
    }

    /// Maps a server error to a case. SQLSTATE codes: PostgreSQL manual, Appendix A.
    static func fromServer(sqlState: String, message: String, constraint: String?) -> StoreError {
        switch sqlState {
        case "23505": return .uniqueViolation(constraint: constraint)
        case "23503": return .foreignKeyViolation(constraint: constraint)
        case "23514": return .checkViolation(constraint: constraint)
        case "40001": return .serializationFailure
        case "40P01": return .deadlockDetected
        // Server shutting down, crashed, starting up, or out of connection slots; or one that only
        // reads (25006: a standby, which a URL without target_session_attrs=read-write may reach),
        // so the write waits for a primary as during a failover.
        case "57P01", "57P02", "57P03", "53300", "25006": return .unavailable("\(sqlState): \(message)")
        default:
            if sqlState.hasPrefix("08") { return .unavailable("\(sqlState): \(message)") }
            return .queryFailed(sqlState: sqlState, message: message)
        }
    }
}

extension StoreError: CustomStringConvertible {
    /// Never contains SQL text or parameter values, so it is safe to log.
    public var description: String {
        switch self {
        case .unavailable(let why): "database unavailable: \(why)"
        case .poolTimeout: "timed out waiting for a database connection"
        case .uniqueViolation(let c): "unique violation on \(c ?? "unknown constraint")"
        case .foreignKeyViolation(let c): "foreign key violation on \(c ?? "unknown constraint")"
        case .checkViolation(let c): "check violation on \(c ?? "unknown constraint")"
        case .serializationFailure: "could not serialize access (40001)"
        case .deadlockDetected: "deadlock detected (40P01)"
        case .queryFailed(let state, let message): "SQL error \(state): \(message)"
        case .decoding(let why): "decoding failed: \(why)"
        case .migrationFailed(let file, let message): "migration \(file) failed: \(message)"
        case .invalidConfiguration(let why): "invalid database configuration: \(why)"
        }
    }
}
