/// Transaction isolation (PostgreSQL manual §13.2).
public enum IsolationLevel: Sendable, CaseIterable {
    case readCommitted
    case repeatableRead
    case serializable

    var sql: String {
        switch self {
        case .readCommitted: "READ COMMITTED"
        case .repeatableRead: "REPEATABLE READ"
        case .serializable: "SERIALIZABLE"
        }
    }
}
