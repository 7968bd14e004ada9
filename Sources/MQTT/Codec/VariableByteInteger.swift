// MQTT 5.0 §1.5.5: seven bits a byte, least significant group first, the top bit saying more follow;
// at most four bytes, so at most 268,435,455.
public enum VariableByteInteger {
    public static let maximum = 268_435_455

    /// Bytes the encoding of `value` takes (1...4).
    public static func size(of value: Int) -> Int {
        precondition(value >= 0 && value <= maximum, "Variable Byte Integer out of range")
        switch value {
        case ..<128: return 1
        case ..<16_384: return 2
        case ..<2_097_152: return 3
        default: return 4
        }
    }

    public static func encode(_ value: Int, into bytes: inout [UInt8]) {
        precondition(value >= 0 && value <= maximum, "Variable Byte Integer out of range")
        var remaining = value
        repeat {
            var byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            if remaining > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while remaining > 0
    }

    public enum Parse: Equatable, Sendable {
        case value(Int, length: Int)
        /// The bytes end before the last byte of the integer.
        case needMore
    }

    /// Reads a Variable Byte Integer at `start`. A fifth byte, or a longer encoding than the value
    /// needs [MQTT-1.5.5-1], is malformed.
    public static func parse<C: Collection>(_ bytes: C, at start: Int) throws(MQTTError) -> Parse
    where C.Element == UInt8, C.Index == Int {
        var value = 0
        var shift = 0
        var index = start
        while true {
            guard index < bytes.endIndex else { return .needMore }
            let byte = bytes[index]
            value |= Int(byte & 0x7F) << shift
            index += 1
            if byte & 0x80 == 0 {
                let length = index - start
                // The last byte of a multi-byte encoding must not be 0: that value fits in fewer bytes.
                if length > 1, byte == 0 { throw .malformed("Variable Byte Integer not minimally encoded") }
                return .value(value, length: length)
            }
            shift += 7
            if shift >= 28 { throw .malformed("Variable Byte Integer longer than four bytes") }
        }
    }
}
