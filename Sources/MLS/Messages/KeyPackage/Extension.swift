/// RFC 9420 §13: a typed opaque blob. The data stays opaque here so that any type round-trips; the
/// typed accessors in `Extension+Known.swift` decode the ones this implementation knows.
public struct Extension: MLSCodable, Hashable, Sendable {
    public var extensionType: ExtensionType
    public var extensionData: [UInt8]

    public init(extensionType: ExtensionType, extensionData: [UInt8]) {
        self.extensionType = extensionType
        self.extensionData = extensionData
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        extensionType = try ExtensionType(from: &reader)
        extensionData = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(extensionType)
        writer.writeOpaque(extensionData)
    }
}

extension Array where Element == Extension {
    /// The first extension of `type`, if any.
    public func first(ofType type: ExtensionType) -> Extension? {
        first { $0.extensionType == type }
    }

    /// RFC 9420 §13.4: extension lists must not repeat a type.
    public var hasDuplicateTypes: Bool {
        Set(map(\.extensionType)).count != count
    }
}
