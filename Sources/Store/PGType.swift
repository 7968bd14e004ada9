/// A PostgreSQL type OID (`pg_type.oid`), as sent with parameters and reported for result columns.
public struct PGType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// OID 0: the server infers the parameter's type from context.
    public static let unspecified = PGType(rawValue: 0)
    public static let bool = PGType(rawValue: 16)
    public static let bytea = PGType(rawValue: 17)
    public static let char = PGType(rawValue: 18)
    public static let name = PGType(rawValue: 19)
    public static let int8 = PGType(rawValue: 20)
    public static let int2 = PGType(rawValue: 21)
    public static let int4 = PGType(rawValue: 23)
    public static let text = PGType(rawValue: 25)
    public static let oid = PGType(rawValue: 26)
    public static let json = PGType(rawValue: 114)
    public static let xml = PGType(rawValue: 142)
    public static let float4 = PGType(rawValue: 700)
    public static let float8 = PGType(rawValue: 701)
    public static let unknown = PGType(rawValue: 705)
    public static let boolArray = PGType(rawValue: 1000)
    public static let byteaArray = PGType(rawValue: 1001)
    public static let int2Array = PGType(rawValue: 1005)
    public static let int4Array = PGType(rawValue: 1007)
    public static let textArray = PGType(rawValue: 1009)
    public static let int8Array = PGType(rawValue: 1016)
    public static let float8Array = PGType(rawValue: 1022)
    public static let bpchar = PGType(rawValue: 1042)
    public static let varchar = PGType(rawValue: 1043)
    public static let date = PGType(rawValue: 1082)
    public static let timestamp = PGType(rawValue: 1114)
    public static let timestampArray = PGType(rawValue: 1115)
    public static let timestamptz = PGType(rawValue: 1184)
    public static let timestamptzArray = PGType(rawValue: 1185)
    public static let numeric = PGType(rawValue: 1700)
    public static let uuid = PGType(rawValue: 2950)
    public static let uuidArray = PGType(rawValue: 2951)
    public static let jsonb = PGType(rawValue: 3802)

    public var description: String {
        switch self {
        case .bool: "bool"
        case .bytea: "bytea"
        case .char: "char"
        case .name: "name"
        case .int8: "int8"
        case .int2: "int2"
        case .int4: "int4"
        case .text: "text"
        case .oid: "oid"
        case .json: "json"
        case .float4: "float4"
        case .float8: "float8"
        case .unknown: "unknown"
        case .bpchar: "bpchar"
        case .varchar: "varchar"
        case .date: "date"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .numeric: "numeric"
        case .uuid: "uuid"
        case .jsonb: "jsonb"
        default: "oid \(rawValue)"
        }
    }

    /// Types whose binary form is their UTF-8 text.
    var isTextual: Bool {
        switch self {
        case .text, .varchar, .bpchar, .name, .json, .xml, .unknown: true
        default: false
        }
    }
}
