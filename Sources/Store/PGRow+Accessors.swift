import Foundation

/// Named accessors: `row.int64("id")` throws on NULL; `row.optionalInt64("id")` gives nil.
/// Columns are named by output name or by zero-based position: `row.string(0)`.
extension PGRow {
    @inlinable public func int64(_ column: some PGColumnKey) throws(StoreError) -> Int64 { try decode(Int64.self, column) }
    @inlinable public func int(_ column: some PGColumnKey) throws(StoreError) -> Int { try decode(Int.self, column) }
    @inlinable public func int32(_ column: some PGColumnKey) throws(StoreError) -> Int32 { try decode(Int32.self, column) }
    @inlinable public func int16(_ column: some PGColumnKey) throws(StoreError) -> Int16 { try decode(Int16.self, column) }
    @inlinable public func bool(_ column: some PGColumnKey) throws(StoreError) -> Bool { try decode(Bool.self, column) }
    @inlinable public func double(_ column: some PGColumnKey) throws(StoreError) -> Double { try decode(Double.self, column) }
    @inlinable public func string(_ column: some PGColumnKey) throws(StoreError) -> String { try decode(String.self, column) }
    @inlinable public func bytes(_ column: some PGColumnKey) throws(StoreError) -> [UInt8] { try decode([UInt8].self, column) }
    @inlinable public func data(_ column: some PGColumnKey) throws(StoreError) -> Data { try decode(Data.self, column) }
    @inlinable public func date(_ column: some PGColumnKey) throws(StoreError) -> Date { try decode(Date.self, column) }
    @inlinable public func uuid(_ column: some PGColumnKey) throws(StoreError) -> UUID { try decode(UUID.self, column) }

    @inlinable public func optionalInt64(_ column: some PGColumnKey) throws(StoreError) -> Int64? {
        try decodeOptional(Int64.self, column)
    }
    @inlinable public func optionalInt(_ column: some PGColumnKey) throws(StoreError) -> Int? {
        try decodeOptional(Int.self, column)
    }
    @inlinable public func optionalInt32(_ column: some PGColumnKey) throws(StoreError) -> Int32? {
        try decodeOptional(Int32.self, column)
    }
    @inlinable public func optionalInt16(_ column: some PGColumnKey) throws(StoreError) -> Int16? {
        try decodeOptional(Int16.self, column)
    }
    @inlinable public func optionalBool(_ column: some PGColumnKey) throws(StoreError) -> Bool? {
        try decodeOptional(Bool.self, column)
    }
    @inlinable public func optionalDouble(_ column: some PGColumnKey) throws(StoreError) -> Double? {
        try decodeOptional(Double.self, column)
    }
    @inlinable public func optionalString(_ column: some PGColumnKey) throws(StoreError) -> String? {
        try decodeOptional(String.self, column)
    }
    @inlinable public func optionalBytes(_ column: some PGColumnKey) throws(StoreError) -> [UInt8]? {
        try decodeOptional([UInt8].self, column)
    }
    @inlinable public func optionalData(_ column: some PGColumnKey) throws(StoreError) -> Data? {
        try decodeOptional(Data.self, column)
    }
    @inlinable public func optionalDate(_ column: some PGColumnKey) throws(StoreError) -> Date? {
        try decodeOptional(Date.self, column)
    }
    @inlinable public func optionalUUID(_ column: some PGColumnKey) throws(StoreError) -> UUID? {
        try decodeOptional(UUID.self, column)
    }
}
