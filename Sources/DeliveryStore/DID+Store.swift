import Basics
import Store

/// A DID is bound as its text; the store's DID columns are `text`.
extension DID: PGBindable {
    public var pgBinding: PGBinding { rawValue.pgBinding }
}

extension PGRow {
    /// A DID column; it was validated on the way in, so a malformed one is a decoding error.
    func did(_ column: String) throws -> DID {
        let text = try string(column)
        do { return try DID(text) } catch { throw StoreError.decoding("\(column) is not a DID") }
    }
}
