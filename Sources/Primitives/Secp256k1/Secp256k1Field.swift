/// Native secp256k1 arithmetic for ECDSA verification (SEC 2 §2.4.1). Verification only sees public
/// data, so nothing here is constant-time.
enum Secp256k1 {}

extension Secp256k1 {
    /// An element of GF(p), p = 2^256 − 2^32 − 977, as four little-endian 64-bit limbs. Values stay
    /// below 2^256 but not necessarily below p; `normalized` gives the canonical representative.
    struct FieldElement: Sendable {
        var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64

        @inline(__always)
        init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
            self.l0 = l0
            self.l1 = l1
            self.l2 = l2
            self.l3 = l3
        }

        init(_ small: UInt64) { self.init(small, 0, 0, 0) }

        static let zero = FieldElement(0)
        static let one = FieldElement(1)
        /// 2^256 mod p: the reduction folds the high half in with this factor.
        static let c: UInt64 = 0x1_0000_03D1
        static let p = FieldElement(0xFFFF_FFFE_FFFF_FC2F, .max, .max, .max)

        /// 32 big-endian bytes at `offset`; nil when the value is not below p.
        init?(bigEndian bytes: [UInt8], at offset: Int = 0) {
            guard bytes.count >= offset + 32 else { return nil }
            let limbs = loadBigEndianLimbs(bytes, at: offset)
            self.init(limbs.0, limbs.1, limbs.2, limbs.3)
            guard !isAtLeastP else { return nil }
        }

        /// 32 big-endian bytes of the canonical value.
        var bigEndianBytes: [UInt8] {
            let n = normalized
            return storeBigEndianLimbs((n.l0, n.l1, n.l2, n.l3))
        }

        /// True when the limbs hold a value in [p, 2^256).
        @inline(__always)
        var isAtLeastP: Bool {
            // p's top three limbs are all ones, so only the lowest limb decides.
            l3 == .max && l2 == .max && l1 == .max && l0 >= Self.p.l0
        }

        /// The representative in [0, p).
        @inline(__always)
        var normalized: FieldElement {
            // Any value below 2^256 is below 2p, so one subtraction of p (adding c mod 2^256) suffices.
            isAtLeastP ? FieldElement(l0 &+ Self.c, 0, 0, 0) : self
        }

        @inline(__always)
        var isZero: Bool {
            let n = normalized
            return (n.l0 | n.l1 | n.l2 | n.l3) == 0
        }

        var isOdd: Bool { normalized.l0 & 1 == 1 }

        @inline(__always)
        func isEqual(to other: FieldElement) -> Bool { (self - other).isZero }

        @inline(__always)
        static func + (a: FieldElement, b: FieldElement) -> FieldElement {
            var (r0, carry) = addCarry(a.l0, b.l0, 0)
            var r1: UInt64, r2: UInt64, r3: UInt64
            (r1, carry) = addCarry(a.l1, b.l1, carry)
            (r2, carry) = addCarry(a.l2, b.l2, carry)
            (r3, carry) = addCarry(a.l3, b.l3, carry)
            // A carry out is 2^256 ≡ c. It is folded in with a mask, not a branch: it is set half the
            // time. Folding can carry once more only for sums near 2^257, which is rare and then tiny.
            (r0, carry) = addCarry(r0, c & (0 &- carry), 0)
            (r1, carry) = addCarry(r1, 0, carry)
            (r2, carry) = addCarry(r2, 0, carry)
            (r3, carry) = addCarry(r3, 0, carry)
            if carry != 0 { r0 &+= c }
            return FieldElement(r0, r1, r2, r3)
        }

        @inline(__always)
        static func - (a: FieldElement, b: FieldElement) -> FieldElement {
            var (r0, borrow) = subBorrow(a.l0, b.l0, 0)
            var r1: UInt64, r2: UInt64, r3: UInt64
            (r1, borrow) = subBorrow(a.l1, b.l1, borrow)
            (r2, borrow) = subBorrow(a.l2, b.l2, borrow)
            (r3, borrow) = subBorrow(a.l3, b.l3, borrow)
            // A borrow means the limbs hold the difference + 2^256; subtracting c takes 2^256 ≡ c away
            // (masked, as above). A second borrow leaves a value near 2^256, so a third cannot happen.
            (r0, borrow) = subBorrow(r0, c & (0 &- borrow), 0)
            (r1, borrow) = subBorrow(r1, 0, borrow)
            (r2, borrow) = subBorrow(r2, 0, borrow)
            (r3, borrow) = subBorrow(r3, 0, borrow)
            if borrow != 0 { r0 &-= c }
            return FieldElement(r0, r1, r2, r3)
        }

        @inline(__always)
        static prefix func - (a: FieldElement) -> FieldElement { zero - a }

        @inline(__always)
        var doubled: FieldElement { self + self }

        @inline(__always)
        static func * (a: FieldElement, b: FieldElement) -> FieldElement {
            var k: UInt64
            var t0: UInt64, t1: UInt64, t2: UInt64, t3: UInt64, t4: UInt64, t5: UInt64, t6: UInt64, t7: UInt64
            (t0, k) = mac(a.l0, b.l0, 0, 0)
            (t1, k) = mac(a.l0, b.l1, 0, k)
            (t2, k) = mac(a.l0, b.l2, 0, k)
            (t3, t4) = mac(a.l0, b.l3, 0, k)

            (t1, k) = mac(a.l1, b.l0, t1, 0)
            (t2, k) = mac(a.l1, b.l1, t2, k)
            (t3, k) = mac(a.l1, b.l2, t3, k)
            (t4, t5) = mac(a.l1, b.l3, t4, k)

            (t2, k) = mac(a.l2, b.l0, t2, 0)
            (t3, k) = mac(a.l2, b.l1, t3, k)
            (t4, k) = mac(a.l2, b.l2, t4, k)
            (t5, t6) = mac(a.l2, b.l3, t5, k)

            (t3, k) = mac(a.l3, b.l0, t3, 0)
            (t4, k) = mac(a.l3, b.l1, t4, k)
            (t5, k) = mac(a.l3, b.l2, t5, k)
            (t6, t7) = mac(a.l3, b.l3, t6, k)
            return reduce(t0, t1, t2, t3, t4, t5, t6, t7)
        }

        /// A dedicated squaring (10 limb products instead of 16) measured no faster in the verifier.
        @inline(__always)
        var squared: FieldElement { self * self }

        /// t mod p for a 512-bit t, folding the high half in as 2^256 ≡ c (twice: c is 33 bits).
        @inline(__always)
        static func reduce(
            _ t0: UInt64, _ t1: UInt64, _ t2: UInt64, _ t3: UInt64,
            _ t4: UInt64, _ t5: UInt64, _ t6: UInt64, _ t7: UInt64
        ) -> FieldElement {
            var k: UInt64
            var r0: UInt64, r1: UInt64, r2: UInt64, r3: UInt64
            (r0, k) = mac(t4, c, t0, 0)
            (r1, k) = mac(t5, c, t1, k)
            (r2, k) = mac(t6, c, t2, k)
            (r3, k) = mac(t7, c, t3, k)
            // k < 2^34, so k·c < 2^67 and the second fold touches two limbs plus a carry.
            // Through `mac`, the carry out of r0 rides in the high word (add-with-carry, no branch);
            // the carries further up are rare, so their branches predict well.
            var carry: UInt64
            (r0, k) = mac(k, c, r0, 0)
            (r1, carry) = addCarry(r1, k, 0)
            (r2, carry) = addCarry(r2, 0, carry)
            (r3, carry) = addCarry(r3, 0, carry)
            if carry != 0 {
                // The wrapped value is tiny here, so adding c cannot carry out of the top limb.
                (r0, carry) = addCarry(r0, c, 0)
                (r1, carry) = addCarry(r1, 0, carry)
                (r2, carry) = addCarry(r2, 0, carry)
                r3 &+= carry
            }
            return FieldElement(r0, r1, r2, r3)
        }

        @inline(__always)
        func squared(times count: Int) -> FieldElement {
            var r = self
            for _ in 0..<count { r = r.squared }
            return r
        }

        /// a^(2^k − 1) for k = 2, 3, 22, 223: the shared prefix of the inverse and square-root chains.
        private var powersOfOnes: (x2: FieldElement, x3: FieldElement, x22: FieldElement, x223: FieldElement) {
            let x2 = squared * self
            let x3 = x2.squared * self
            let x6 = x3.squared(times: 3) * x3
            let x9 = x6.squared(times: 3) * x3
            let x11 = x9.squared(times: 2) * x2
            let x22 = x11.squared(times: 11) * x11
            let x44 = x22.squared(times: 22) * x22
            let x88 = x44.squared(times: 44) * x44
            let x176 = x88.squared(times: 88) * x88
            let x220 = x176.squared(times: 44) * x44
            let x223 = x220.squared(times: 3) * x3
            return (x2, x3, x22, x223)
        }

        /// a^(p−2) = a⁻¹ (Fermat); zero maps to zero.
        var inverse: FieldElement {
            // p − 2 in binary: 223 ones, 0, 22 ones, 0000101101.
            let x = powersOfOnes
            var t = x.x223.squared(times: 23) * x.x22
            t = t.squared(times: 5) * self
            t = t.squared(times: 3) * x.x2
            return t.squared(times: 2) * self
        }

        /// A square root when one exists: a^((p+1)/4), since p ≡ 3 (mod 4).
        var squareRoot: FieldElement? {
            // (p + 1)/4 in binary: 223 ones, 0, 22 ones, 00001100.
            let x = powersOfOnes
            var t = x.x223.squared(times: 23) * x.x22
            t = t.squared(times: 6) * x.x2
            t = t.squared(times: 2)
            return t.squared.isEqual(to: self) ? t : nil
        }
    }
}

/// accumulator + a·b + carry, which always fits in 128 bits.
@inline(__always)
func mac(_ a: UInt64, _ b: UInt64, _ accumulator: UInt64, _ carry: UInt64) -> (low: UInt64, high: UInt64) {
    let product = a.multipliedFullWidth(by: b)
    let (s1, o1) = product.low.addingReportingOverflow(accumulator)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    return (s2, product.high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0))
}

// The carries come from comparisons, not from `addingReportingOverflow` flags: LLVM turns a flag fed
// into the next limb's addition into a data-dependent branch that mispredicts half the time, while
// these compile to add/adc and sub/sbb chains.

@inline(__always)
func addCarry(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (sum: UInt64, carry: UInt64) {
    let s1 = a &+ b
    let s2 = s1 &+ carry
    return (s2, (s1 < a ? 1 : 0) | (s2 < s1 ? 1 : 0))
}

@inline(__always)
func subBorrow(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (difference: UInt64, borrow: UInt64) {
    let d1 = a &- b
    let d2 = d1 &- borrow
    return (d2, (a < b ? 1 : 0) | (d1 < borrow ? 1 : 0))
}

/// Four little-endian limbs from 32 big-endian bytes at `offset`.
func loadBigEndianLimbs(_ bytes: [UInt8], at offset: Int) -> (UInt64, UInt64, UInt64, UInt64) {
    func limb(_ index: Int) -> UInt64 {
        var value: UInt64 = 0
        let start = offset + 24 - 8 * index
        for i in start..<start + 8 { value = value << 8 | UInt64(bytes[i]) }
        return value
    }
    return (limb(0), limb(1), limb(2), limb(3))
}

func storeBigEndianLimbs(_ limbs: (UInt64, UInt64, UInt64, UInt64)) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    for (index, limb) in [limbs.0, limbs.1, limbs.2, limbs.3].enumerated() {
        for i in 0..<8 { out[31 - 8 * index - i] = UInt8(truncatingIfNeeded: limb >> (8 * i)) }
    }
    return out
}
