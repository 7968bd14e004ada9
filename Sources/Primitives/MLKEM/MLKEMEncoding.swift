/// ByteEncode/ByteDecode and Compress/Decompress (FIPS 203 §4.2.1, Algorithms 5–6) for the widths
/// ML-KEM-768 uses: 12 (keys), 10 (d_u), 4 (d_v) and 1 (the message). Rounding is done with
/// multiplications and shifts, never division, so no timing depends on a secret coefficient.
extension MLKEMPoly {
    /// ByteEncode_12 of the coefficients taken mod q into [0, q): 384 bytes.
    func encode12(into out: inout [UInt8], at offset: Int) {
        c.withUnsafeBufferPointer { r in
            for i in 0..<128 {
                let t0 = UInt16(bitPattern: Self.positive(r[2 * i]))
                let t1 = UInt16(bitPattern: Self.positive(r[2 * i + 1]))
                out[offset + 3 * i] = UInt8(truncatingIfNeeded: t0)
                out[offset + 3 * i + 1] = UInt8(truncatingIfNeeded: (t0 >> 8) | (t1 << 4))
                out[offset + 3 * i + 2] = UInt8(truncatingIfNeeded: t1 >> 4)
            }
        }
    }

    /// ByteDecode_12 without reduction: coefficients in [0, 4096). The caller checks or reduces.
    static func decode12(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> MLKEMPoly {
        var poly = MLKEMPoly()
        poly.c.withUnsafeMutableBufferPointer { r in
            for i in 0..<128 {
                let b0 = UInt16(bytes[offset + 3 * i]), b1 = UInt16(bytes[offset + 3 * i + 1]), b2 = UInt16(bytes[offset + 3 * i + 2])
                r[2 * i] = Int16(bitPattern: (b0 | (b1 << 8)) & 0xFFF)
                r[2 * i + 1] = Int16(bitPattern: ((b1 >> 4) | (b2 << 4)) & 0xFFF)
            }
        }
        return poly
    }

    /// Maps coefficients in [0, 4096) to [0, q) by one conditional subtraction under a mask: FIPS 203's
    /// ByteDecode_12 reduces mod q (2·q > 4095).
    mutating func subtractQIfNeeded() {
        c.withUnsafeMutableBufferPointer { r in
            for i in 0..<Self.n {
                let t = r[i] &- Self.q
                r[i] = t &+ ((t >> 15) & Self.q)
            }
        }
    }

    /// Compress_10 then ByteEncode_10: 320 bytes.
    func compress10(into out: inout [UInt8], at offset: Int) {
        c.withUnsafeBufferPointer { r in
            // round(2^10 · u / q) = ((u << 10) + q/2) · ⌊2^32 / q⌉ >> 32, exact for u < q.
            func compress(_ x: Int16) -> UInt16 {
                let u = UInt64(UInt16(bitPattern: Self.positive(x)))
                return UInt16(truncatingIfNeeded: (((u << 10) &+ 1665) &* 1_290_167) >> 32) & 0x3FF
            }
            for j in 0..<64 {
                let t0 = compress(r[4 * j]), t1 = compress(r[4 * j + 1])
                let t2 = compress(r[4 * j + 2]), t3 = compress(r[4 * j + 3])
                let base = offset + 5 * j
                out[base] = UInt8(truncatingIfNeeded: t0)
                out[base + 1] = UInt8(truncatingIfNeeded: (t0 >> 8) | (t1 << 2))
                out[base + 2] = UInt8(truncatingIfNeeded: (t1 >> 6) | (t2 << 4))
                out[base + 3] = UInt8(truncatingIfNeeded: (t2 >> 4) | (t3 << 6))
                out[base + 4] = UInt8(truncatingIfNeeded: t3 >> 2)
            }
        }
    }

    /// ByteDecode_10 then Decompress_10.
    static func decompress10(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> MLKEMPoly {
        var poly = MLKEMPoly()
        poly.c.withUnsafeMutableBufferPointer { r in
            for j in 0..<64 {
                let base = offset + 5 * j
                let a0 = UInt32(bytes[base]), a1 = UInt32(bytes[base + 1]), a2 = UInt32(bytes[base + 2])
                let a3 = UInt32(bytes[base + 3]), a4 = UInt32(bytes[base + 4])
                func decompress(_ t: UInt32) -> Int16 { Int16(((t & 0x3FF) * 3329 + 512) >> 10) }
                r[4 * j] = decompress(a0 | (a1 << 8))
                r[4 * j + 1] = decompress((a1 >> 2) | (a2 << 6))
                r[4 * j + 2] = decompress((a2 >> 4) | (a3 << 4))
                r[4 * j + 3] = decompress((a3 >> 6) | (a4 << 2))
            }
        }
        return poly
    }

    /// Compress_4 then ByteEncode_4: 128 bytes.
    func compress4(into out: inout [UInt8], at offset: Int) {
        c.withUnsafeBufferPointer { r in
            for i in 0..<128 {
                var pair: UInt8 = 0
                for k in 0..<2 {
                    let u = UInt32(UInt16(bitPattern: Self.positive(r[2 * i + k])))
                    // round(16 · u / q) = ((u << 4) + q/2) · ⌊2^28 / q⌉ >> 28, exact for u < q.
                    let t = UInt8(truncatingIfNeeded: (((u << 4) &+ 1665) &* 80635) >> 28) & 0xF
                    pair |= t << (4 * UInt8(k))
                }
                out[offset + i] = pair
            }
        }
    }

    /// ByteDecode_4 then Decompress_4.
    static func decompress4(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> MLKEMPoly {
        var poly = MLKEMPoly()
        poly.c.withUnsafeMutableBufferPointer { r in
            for i in 0..<128 {
                let byte = Int32(bytes[offset + i])
                r[2 * i] = Int16(((byte & 15) * 3329 + 8) >> 4)
                r[2 * i + 1] = Int16(((byte >> 4) * 3329 + 8) >> 4)
            }
        }
        return poly
    }

    /// Decompress_1(ByteDecode_1(m)): bit b becomes b·⌈q/2⌋, selected by a mask.
    static func fromMessage(_ message: [UInt8]) -> MLKEMPoly {
        var poly = MLKEMPoly()
        poly.c.withUnsafeMutableBufferPointer { r in
            for i in 0..<32 {
                for j in 0..<8 {
                    let mask = 0 &- Int16((message[i] >> UInt8(j)) & 1)
                    r[8 * i + j] = mask & ((Self.q + 1) / 2)
                }
            }
        }
        return poly
    }

    /// ByteEncode_1(Compress_1(self)): 32 bytes; each bit is round(2u/q) mod 2 by multiply and shift.
    func toMessage() -> [UInt8] {
        var message = [UInt8](repeating: 0, count: 32)
        c.withUnsafeBufferPointer { r in
            for i in 0..<32 {
                var byte: UInt8 = 0
                for j in 0..<8 {
                    let u = UInt32(UInt16(bitPattern: Self.positive(r[8 * i + j])))
                    let bit = UInt8(truncatingIfNeeded: (((u << 1) &+ 1665) &* 80635) >> 28) & 1
                    byte |= bit << UInt8(j)
                }
                message[i] = byte
            }
        }
        return message
    }
}
