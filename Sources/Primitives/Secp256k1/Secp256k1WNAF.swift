extension Secp256k1 {
    /// The width-w non-adjacent form of a scalar: digits that are zero or odd with |d| < 2^(w−1), at
    /// most one nonzero in any w consecutive positions, with k = Σ digits[i]·2^i.
    struct WNAF: Sendable {
        /// Indexed by bit position; entries from `count` on are zero.
        private(set) var digits: [Int16]
        /// One past the highest nonzero digit.
        private(set) var count = 0

        init(_ k: Scalar, width: Int) {
            precondition((2...15).contains(width), "wNAF width")
            digits = [Int16](repeating: 0, count: 256 + width + 1)
            let bitLength = k.bitLength
            var bit = 0
            var carry: UInt64 = 0
            while bit < bitLength || carry != 0 {
                if k.bits(at: bit, count: 1) == carry {
                    bit += 1
                    continue
                }
                var word = k.bits(at: bit, count: width) &+ carry
                carry = (word >> UInt64(width - 1)) & 1
                word = word &- (carry << UInt64(width))
                digits[bit] = Int16(truncatingIfNeeded: Int64(bitPattern: word))
                count = bit + 1
                bit += width
            }
        }
    }
}

extension Secp256k1.WNAF {
    /// Digits a part below 2^32 can have, at any width: positions 0…32. A negative digit at
    /// position b carries 2^(b+w) upwards; it is chosen when the window (w bits from b, plus the
    /// carry in, odd) is above 2^(w−1), which needs the window's top bit b + w − 1 to be a bit of
    /// the part: b ≤ 32 − w, so the carry lands at 32 or below.
    static let partSpan = 33

    /// The width-w NAF of `k` (below 2^32), as `init` computes it, into `digits[offset...]` (zeroed,
    /// `partSpan` of them); returns one past the highest nonzero digit.
    static func writeDigits(of k: UInt64, width: Int, into digits: inout [Int16], at offset: Int) -> Int {
        precondition(k >> 32 == 0 && (2...15).contains(width), "wNAF part")
        let mask: UInt64 = (1 << UInt64(width)) - 1
        var bit = 0
        var carry: UInt64 = 0
        var count = 0
        while k >> UInt64(bit) != 0 || carry != 0 {
            if (k >> UInt64(bit)) & 1 == carry {
                bit += 1
                continue
            }
            var word = ((k >> UInt64(bit)) & mask) &+ carry
            carry = (word >> UInt64(width - 1)) & 1
            word = word &- (carry << UInt64(width))
            precondition(bit < partSpan, "wNAF part")
            digits[offset + bit] = Int16(truncatingIfNeeded: Int64(bitPattern: word))
            count = bit + 1
            bit += width
        }
        return count
    }
}

extension Secp256k1.Scalar {
    var bitLength: Int {
        if l3 != 0 { return 256 - l3.leadingZeroBitCount }
        if l2 != 0 { return 192 - l2.leadingZeroBitCount }
        if l1 != 0 { return 128 - l1.leadingZeroBitCount }
        return 64 - l0.leadingZeroBitCount
    }

    /// `count` (≤ 63) bits starting at bit `position`; bits past 255 read as zero.
    @inline(__always)
    func bits(at position: Int, count: Int) -> UInt64 {
        guard position < 256 else { return 0 }
        let index = position >> 6
        let offset = UInt64(position & 63)
        var value = limb(index) >> offset
        if offset + UInt64(count) > 64, index < 3 { value |= limb(index + 1) << (64 - offset) }
        return value & ((1 << UInt64(count)) - 1)
    }

    @inline(__always)
    private func limb(_ index: Int) -> UInt64 {
        switch index {
        case 0: l0
        case 1: l1
        case 2: l2
        default: l3
        }
    }
}
