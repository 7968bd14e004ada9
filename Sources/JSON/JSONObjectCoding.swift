/// A type that reads its members straight off the parsed document (`JSONObjectReader`) instead of
/// through Codable's containers: no container box, no type-metadata lookup and no dynamic dispatch
/// per member, about half of what decoding a small object costs through `Decodable`.
///
/// Only for the hottest request and response types. Its `Decodable` conformance stays, for every
/// other decoder; `init(json:)` must read what `init(from:)` reads, in the same order and with the
/// same keys (its `CodingKeys`), so that both accept the same documents and fail with the same
/// error. `StrictJSON.decode(_:from:objects: .codable)` decodes through Codable alone, which the
/// tests and the JSON fuzz target compare the direct path with: a new conforming lexicon type
/// belongs in `LexiconDirectCodingTests` and among the fuzz target's selectors.
public protocol JSONObjectDecodable: Decodable {
    init(json object: JSONObjectReader) throws
}

/// A type that writes its members straight to the output (`JSONObjectWriter`): the same bytes as its
/// `Encodable` conformance writes through `StrictJSON` (members in declaration order, absent
/// optionals left out, as synthesized conformances do), at a fraction of the cost.
public protocol JSONObjectEncodable: Encodable {
    func encode(json object: inout JSONObjectWriter)
}

public typealias JSONObjectCodable = JSONObjectDecodable & JSONObjectEncodable

/// Whether `StrictJSON` uses a type's direct conformance (`JSONObjectDecodable`,
/// `JSONObjectEncodable`) when it has one, or its Codable conformance alone.
public enum JSONObjectCoding: Sendable {
    case direct
    case codable
}
