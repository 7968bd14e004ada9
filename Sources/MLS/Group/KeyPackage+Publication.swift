/// How a KeyPackage was published: wrapped in an MLSMessage (RFC 9420 §6, wire_format
/// mls_key_package), or as the bare `KeyPackage` struct (§10), as OpenMLS clients such as Catbird
/// upload it. The KeyPackageRef (§5.2) is computed over the KeyPackage struct, so it is the same
/// for both forms.
public enum KeyPackageEncoding: Sendable, Hashable {
    case mlsMessage
    case bare
}

/// A KeyPackage offered for publication, validated, with its reference and the form it came in.
public struct PublishedKeyPackage: Sendable, Hashable {
    public let keyPackage: KeyPackage
    /// RFC 9420 §5.2: RefHash("MLS 1.0 KeyPackage Reference", KeyPackage).
    public let ref: [UInt8]
    public let encoding: KeyPackageEncoding
}

extension KeyPackage {
    /// version mls10, wire_format mls_key_package: the start of every MLSMessage(KeyPackage).
    static let wrappedPrefix: [UInt8] = [0x00, 0x01, 0x00, 0x05]
    /// What follows version mls10 and cipher_suite 5 in every valid bare suite-5 KeyPackage: the
    /// minimal varint of its init_key's length, 133 bytes (an uncompressed P-521 point, RFC 9180 §7.1).
    static let bareSuite5Continuation: [UInt8] = [0x40, 0x85]

    /// Decodes published bytes in either form. Both start with version 0x0001; an MLSMessage goes on
    /// with wire_format 0x0005, a bare KeyPackage with its cipher_suite, so the two share their first
    /// four bytes only for suite 5 (MLS_256_DHKEMP521_AES256GCM_SHA512_P521). Bytes 4–5 then settle
    /// it: a bare suite-5 KeyPackage continues with its init_key length, which for a valid one is
    /// always 0x4085 (133 bytes), while an MLSMessage(KeyPackage) continues with the KeyPackage's
    /// version, which §10.1 requires to be 0x0001. So bytes 0–5 = 0001 0005 4085 are read as bare,
    /// any other 0001 0005 … as an MLSMessage, and the rest as bare: every valid KeyPackage is read
    /// in the form it was published in, and what is misread could only be an invalid one (a wrapped
    /// KeyPackage of version 0x4085, a bare suite-5 one with a malformed init_key), refused either way.
    /// The bytes must be used exactly; the codec's encodings are canonical (minimal varints), so
    /// `keyPackage.encoded()` is the published struct byte for byte, and its KeyPackageRef the same
    /// in both forms.
    public static func decodePublished(_ bytes: [UInt8]) throws(KeyPackageError) -> (keyPackage: KeyPackage, encoding: KeyPackageEncoding) {
        if bytes.starts(with: wrappedPrefix), !bytes.dropFirst(4).starts(with: bareSuite5Continuation) {
            let message: MLSMessage
            do { message = try MLSMessage(decoding: bytes) } catch { throw .malformed(error) }
            guard case .keyPackage(let keyPackage) = message.body else { throw .notAKeyPackage }
            return (keyPackage, .mlsMessage)
        }
        do {
            return (try KeyPackage(decoding: bytes), .bare)
        } catch {
            // Other MLSMessages (a Welcome, a GroupInfo, …) are named as such rather than as bad KeyPackages.
            if let message = try? MLSMessage(decoding: bytes), message.wireFormat != .keyPackage { throw .notAKeyPackage }
            throw .malformed(error)
        }
    }

    /// For the service's publication endpoint: decodes a KeyPackage in either form, checks it as
    /// `validate` does against its own suite (or `expectedSuite`), and returns it with its
    /// KeyPackageRef and form. The service stores the bytes as published and serves them back so.
    public static func validated(
        published bytes: [UInt8], expectedSuite: UInt16? = nil, now: UInt64, maxLifetime: UInt64, skew: UInt64 = 0
    ) throws(KeyPackageError) -> PublishedKeyPackage {
        let (keyPackage, encoding) = try decodePublished(bytes)
        guard keyPackage.version == .mls10 else { throw .unsupportedVersion(keyPackage.version.rawValue) }
        if let expectedSuite, expectedSuite != keyPackage.cipherSuite {
            throw .cipherSuiteMismatch(expected: expectedSuite, actual: keyPackage.cipherSuite)
        }
        guard let suite = CipherSuite(rawValue: keyPackage.cipherSuite) else {
            throw .unsupportedCipherSuite(keyPackage.cipherSuite)
        }
        try keyPackage.validate(suite: suite, now: now, maxLifetime: maxLifetime, skew: skew)
        return PublishedKeyPackage(keyPackage: keyPackage, ref: keyPackage.reference(suite: suite), encoding: encoding)
    }
}
