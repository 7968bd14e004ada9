import Primitives

/// psk_secret from the PSKs of a commit or Welcome (RFC 9420 §8.4).
public enum PSKSecret {
    /// One PSK: its encoded PreSharedKeyID and the secret it names.
    public struct Input: Sendable {
        public let encodedID: [UInt8]
        public let psk: [UInt8]

        public init(encodedID: [UInt8], psk: [UInt8]) {
            self.encodedID = encodedID
            self.psk = psk
        }
    }

    /// psk_extracted_[i] = Extract(0, psk_[i]);
    /// psk_input_[i] = ExpandWithLabel(psk_extracted_[i], "derived psk", PSKLabel, Nh);
    /// psk_secret_[i] = Extract(psk_input_[i-1], psk_secret_[i-1]), starting from the zero vector.
    public static func compute(suite: CipherSuite, psks: [Input]) throws(CryptoError) -> [UInt8] {
        guard psks.count <= Int(UInt16.max) else { throw .invalidParameter("too many PSKs") }
        let zero = [UInt8](repeating: 0, count: suite.nh)
        var secret = zero
        for (index, input) in psks.enumerated() {
            let extracted = try suite.kdfExtract(salt: zero, ikm: input.psk)
            let label = pskLabel(encodedID: input.encodedID, index: UInt16(index), count: UInt16(psks.count))
            let pskInput = try suite.expandWithLabel(secret: extracted, label: "derived psk", context: label, length: suite.nh)
            secret = try suite.kdfExtract(salt: pskInput, ikm: secret)
        }
        return secret
    }

    /// PSKLabel = struct { PreSharedKeyID id; uint16 index; uint16 count; }.
    static func pskLabel(encodedID: [UInt8], index: UInt16, count: UInt16) -> [UInt8] {
        var writer = TLSWriter(capacity: encodedID.count + 4)
        writer.writeBytes(encodedID)
        writer.write(index)
        writer.write(count)
        return writer.bytes
    }
}
