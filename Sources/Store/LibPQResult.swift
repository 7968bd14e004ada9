import CLibPQ

/// Owns one `PGresult *` and copies its contents into Swift values.
final class LibPQResult {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var isSuccess: Bool {
        switch PQresultStatus(handle) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: true
        default: false
        }
    }

    /// A statement the server skipped because an earlier one in the same pipeline failed.
    var isPipelineAborted: Bool { PQresultStatus(handle) == PGRES_PIPELINE_ABORTED }

    /// Rows affected by INSERT/UPDATE/DELETE/SELECT…; 0 for commands that report none.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The error as a `StoreError`. Field codes: PostgreSQL manual §55.8 (Error and Notice
    /// Message Fields), `PG_DIAG_*` in postgres_ext.h.
    func error(connectionOK: Bool) -> StoreError {
        let message = field("M") ?? String(cString: PQresultErrorMessage(handle)).trimmingTrailingNewlines()
        // A broken connection is "unavailable" whatever the server said last.
        guard connectionOK else { return .unavailable(message) }
        guard let state = field("C") else { return .queryFailed(sqlState: "", message: message) }
        return .fromServer(sqlState: state, message: message, constraint: field("n"))
    }

    private func field(_ code: Unicode.Scalar) -> String? {
        guard let value = PQresultErrorField(handle, Int32(code.value)) else { return nil }
        return String(cString: value)
    }

    /// Copies every row out of the result, so the rows outlive it.
    func rows() -> [PGRow] {
        let rowCount = PQntuples(handle)
        let columnCount = PQnfields(handle)
        let columns = PGColumns(
            names: (0..<columnCount).map { String(cString: PQfname(handle, $0)) },
            types: (0..<columnCount).map { PGType(rawValue: PQftype(handle, $0)) })
        var rows: [PGRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            let values: [[UInt8]?] = (0..<columnCount).map { column in
                if PQgetisnull(handle, row, column) == 1 { return nil }
                let length = Int(PQgetlength(handle, row, column))
                guard length > 0, let start = PQgetvalue(handle, row, column) else { return [] }
                return Array(UnsafeRawBufferPointer(start: start, count: length))
            }
            rows.append(PGRow(columns: columns, values: values))
        }
        return rows
    }
}
