/// SampleNTT and SamplePolyCBD (FIPS 203 §4.2.2). SampleNTT works on the public seed ρ, so its
/// rejection loop may branch; SamplePolyCBD works on secret bytes and is branch-free.
extension MLKEMPoly {
    /// SampleNTT(ρ‖j‖i) (Algorithm 7): rejection sampling of 12-bit values below q from SHAKE128.
    static func sampleNTT(seed: [UInt8], j: UInt8, i: UInt8) -> MLKEMPoly {
        var xof = SHAKE128()
        xof.absorb(seed + [j, i])
        var poly = MLKEMPoly()
        // Three blocks give 336 candidates; 256 are needed and 81 % are accepted, so a fourth block
        // is rarely squeezed.
        var buffer = [UInt8](repeating: 0, count: 3 * SHAKE128.rate)
        buffer.withUnsafeMutableBytes { xof.squeeze(into: $0) }
        var filled = 0
        var position = 0
        poly.c.withUnsafeMutableBufferPointer { r in
            while filled < n {
                if position + 3 > buffer.count {
                    buffer = xof.squeeze(SHAKE128.rate)
                    position = 0
                }
                let b0 = UInt16(buffer[position]), b1 = UInt16(buffer[position + 1]), b2 = UInt16(buffer[position + 2])
                position += 3
                let d1 = b0 | ((b1 & 0x0F) << 8)
                let d2 = (b1 >> 4) | (b2 << 4)
                if d1 < UInt16(q) { r[filled] = Int16(d1); filled += 1 }
                if d2 < UInt16(q), filled < n { r[filled] = Int16(d2); filled += 1 }
            }
        }
        return poly
    }

    /// SamplePolyCBD_2(PRF_2(σ, nonce)) (Algorithms 8 and §4.1's PRF): each coefficient is the
    /// difference of two 2-bit popcounts, from 128 bytes of SHAKE256(σ‖nonce).
    static func sampleCBD2(seed: [UInt8], nonce: UInt8) -> MLKEMPoly {
        var xof = SHAKE256()
        xof.absorb(seed + [nonce])
        let bytes = xof.squeeze(128)
        var poly = MLKEMPoly()
        bytes.withUnsafeBytes { buffer in
            poly.c.withUnsafeMutableBufferPointer { r in
                for i in 0..<32 {
                    let t = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
                    let d = (t & 0x5555_5555) &+ ((t >> 1) & 0x5555_5555)
                    for j in 0..<8 {
                        let a = Int16((d >> (4 * UInt32(j))) & 3)
                        let b = Int16((d >> (4 * UInt32(j) + 2)) & 3)
                        r[8 * i + j] = a - b
                    }
                }
            }
        }
        return poly
    }
}
