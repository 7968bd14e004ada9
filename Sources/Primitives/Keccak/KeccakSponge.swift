/// The sponge construction over Keccak-f[1600] (FIPS 202 §4) with a byte-aligned domain suffix:
/// 0x06 for SHA3 (`01` then pad10*1), 0x1F for SHAKE (`1111` then pad10*1). Absorb, then squeeze
/// as often as wanted.
struct KeccakSponge: Sendable {
    private var lanes = [UInt64](repeating: 0, count: 25)
    /// Bytes absorbed or squeezed per permutation: 200 − 2·(security bits / 8).
    let rate: Int
    private let suffix: UInt8
    private var position = 0
    private var squeezing = false

    init(rate: Int, suffix: UInt8) {
        self.rate = rate
        self.suffix = suffix
    }

    private mutating func permute() {
        lanes.withUnsafeMutableBufferPointer { KeccakF1600.permute($0.baseAddress!) }
    }

    mutating func absorb(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { absorb($0) }
    }

    mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
        precondition(!squeezing, "absorb after squeeze")
        var offset = 0
        let count = bytes.count
        lanes.withUnsafeMutableBufferPointer { state in
            while offset < count {
                if position & 7 == 0, count - offset >= 8 {
                    // Whole lanes at a time (little-endian, FIPS 202 §B.1) while aligned.
                    while position < rate, count - offset >= 8 {
                        state[position >> 3] ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                        position += 8
                        offset += 8
                    }
                } else {
                    state[position >> 3] ^= UInt64(bytes[offset]) << (8 * UInt64(position & 7))
                    position += 1
                    offset += 1
                }
                if position == rate {
                    KeccakF1600.permute(state.baseAddress!)
                    position = 0
                }
            }
        }
    }

    /// pad10*1 with the domain suffix, then the first permutation of the squeezing phase.
    private mutating func finish() {
        lanes[position >> 3] ^= UInt64(suffix) << (8 * UInt64(position & 7))
        lanes[(rate - 1) >> 3] ^= UInt64(0x80) << (8 * UInt64((rate - 1) & 7))
        permute()
        position = 0
        squeezing = true
    }

    mutating func squeeze(into out: UnsafeMutableRawBufferPointer) {
        if !squeezing { finish() }
        var offset = 0
        let count = out.count
        lanes.withUnsafeMutableBufferPointer { state in
            while offset < count {
                if position == rate {
                    KeccakF1600.permute(state.baseAddress!)
                    position = 0
                }
                if position & 7 == 0, count - offset >= 8 {
                    while position < rate, count - offset >= 8 {
                        out.storeBytes(of: state[position >> 3].littleEndian, toByteOffset: offset, as: UInt64.self)
                        position += 8
                        offset += 8
                    }
                } else {
                    out[offset] = UInt8(truncatingIfNeeded: state[position >> 3] >> (8 * UInt64(position & 7)))
                    position += 1
                    offset += 1
                }
            }
        }
    }

    mutating func squeeze(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            squeeze(into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
