import Foundation

/// Names and types of a result's columns, shared by all its rows.
@usableFromInline
final class PGColumns: Sendable {
    let names: [String]
    @usableFromInline let types: [PGType]
    /// The first column with each name, as SQL resolves duplicate output names.
    let indexByName: [String: Int]

    init(names: [String], types: [PGType]) {
        self.names = names
        self.types = types
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.indexByName = index
    }
}

/// A column named by its output name (`String`) or its zero-based position (`Int`).
public protocol PGColumnKey: Sendable {
    func columnIndex(in row: PGRow) throws(StoreError) -> Int
}

extension String: PGColumnKey {
    public func columnIndex(in row: PGRow) throws(StoreError) -> Int {
        guard let index = row.columns.indexByName[self] else { throw .decoding("no column named \"\(self)\"") }
        return index
    }
}

extension Int: PGColumnKey {
    public func columnIndex(in row: PGRow) throws(StoreError) -> Int {
        guard self >= 0, self < row.values.count else {
            throw .decoding("column index \(self) out of range (\(row.values.count) columns)")
        }
        return self
    }
}

/// One result row. Values arrive in binary format and are copied out of libpq, so rows outlive
/// the connection and can cross threads. Accessors throw `StoreError.decoding` naming the column.
public struct PGRow: Sendable {
    // Inlinable accessors: callers in other modules get them specialized for their column key
    // and value types, instead of generic calls that look up type metadata per cell.
    @usableFromInline let columns: PGColumns
    @usableFromInline let values: [[UInt8]?]

    init(columns: PGColumns, values: [[UInt8]?]) {
        self.columns = columns
        self.values = values
    }

    public var columnCount: Int { values.count }
    public var columnNames: [String] { columns.names }

    public func columnType(_ column: some PGColumnKey) throws(StoreError) -> PGType {
        columns.types[try column.columnIndex(in: self)]
    }

    public func isNull(_ column: some PGColumnKey) throws(StoreError) -> Bool {
        values[try column.columnIndex(in: self)] == nil
    }

    /// Reads a non-NULL cell; NULL is a decoding error.
    @inlinable
    public func decode<T: PGDecodable>(_: T.Type, _ column: some PGColumnKey) throws(StoreError) -> T {
        guard let value = try decodeOptional(T.self, column) else {
            throw .decoding("\(describe(try column.columnIndex(in: self))) is NULL, expected \(T.self)")
        }
        return value
    }

    /// Reads a cell, giving nil for NULL.
    @inlinable
    public func decodeOptional<T: PGDecodable>(_: T.Type, _ column: some PGColumnKey) throws(StoreError) -> T? {
        let index = try column.columnIndex(in: self)
        guard let bytes = values[index] else { return nil }
        do {
            return try T.decode(bytes, type: columns.types[index])
        } catch {
            throw .decoding("\(describe(index)) as \(T.self): \(error.reason)")
        }
    }

    /// Reads a one-dimensional array column; NULL elements are a decoding error.
    public func array<T: PGDecodable>(_: T.Type, _ column: some PGColumnKey) throws(StoreError) -> [T] {
        let index = try column.columnIndex(in: self)
        guard let bytes = values[index] else { throw .decoding("\(describe(index)) is NULL, expected [\(T.self)]") }
        do {
            return try PGArrayDecoder.decode(bytes, as: T.self).map { element throws(StoreError) in
                guard let element else { throw .decoding("NULL element") }
                return element
            }
        } catch {
            throw .decoding("\(describe(index)) as [\(T.self)]: \(error.reason)")
        }
    }

    @usableFromInline
    func describe(_ index: Int) -> String {
        "column \"\(columns.names[index])\" (\(columns.types[index]))"
    }
}

extension StoreError {
    /// The inner message of a decoding error, for wrapping with the column name.
    @usableFromInline
    var reason: String {
        if case .decoding(let message) = self { return message }
        return description
    }
}
