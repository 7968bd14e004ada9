extension Secp256k1 {
    /// A 256-bit integer in four little-endian limbs; as an element of Z/nZ (n the group order) it is
    /// kept below n. Montgomery-form values (x·2^256 mod n) are named `…Montgomery`.
    struct Scalar: Sendable, Equatable {
        var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64

        @inline(__always)
        init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
            self.l0 = l0
            self.l1 = l1
            self.l2 = l2
            self.l3 = l3
        }

        /// The group order n (SEC 2 §2.4.1).
        static let n = Scalar(0xBFD2_5E8C_D036_4141, 0xBAAE_DCE6_AF48_A03B, 0xFFFF_FFFF_FFFF_FFFE, .max)
        /// −n⁻¹ mod 2^64, the Montgomery reduction factor.
        static let nPrime: UInt64 = 0x4B0D_FF66_5588_B13F
        /// 2^512 mod n: multiplying by it (Montgomery) converts into Montgomery form.
        static let rSquared = Scalar(0x896C_F214_67D7_D140, 0x7414_96C2_0E7C_F878, 0xE697_F5E4_5BCD_07C6, 0x9D67_1CD5_81C6_9BC5)
        /// p − n: an x coordinate ≥ n exists only when r < p − n (SEC 1 §4.1.4 step 7).
        static let pMinusN = Scalar(0x402D_A172_2FC9_BAEE, 0x4551_2319_50B7_5FC4, 1, 0)
        static let zero = Scalar(0, 0, 0, 0)
        static let one = Scalar(1, 0, 0, 0)

        /// The raw 256-bit big-endian integer at `offset` (not reduced).
        init(bigEndian bytes: [UInt8], at offset: Int = 0) {
            let limbs = loadBigEndianLimbs(bytes, at: offset)
            self.init(limbs.0, limbs.1, limbs.2, limbs.3)
        }

        var bigEndianBytes: [UInt8] { storeBigEndianLimbs((l0, l1, l2, l3)) }

        var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

        @inline(__always)
        static func < (a: Scalar, b: Scalar) -> Bool {
            if a.l3 != b.l3 { return a.l3 < b.l3 }
            if a.l2 != b.l2 { return a.l2 < b.l2 }
            if a.l1 != b.l1 { return a.l1 < b.l1 }
            return a.l0 < b.l0
        }

        /// In [1, n−1], as ECDSA requires of r and s (SEC 1 §4.1.4 step 1).
        var isValidNonZero: Bool { !isZero && self < Self.n }

        /// The raw integer mod n; any 256-bit value is below 2n, so one subtraction is enough.
        var reducedModN: Scalar { self < Self.n ? self : subtractingRaw(Self.n).value }

        @inline(__always)
        func subtractingRaw(_ b: Scalar) -> (value: Scalar, borrow: UInt64) {
            var borrow: UInt64
            var r0: UInt64, r1: UInt64, r2: UInt64, r3: UInt64
            (r0, borrow) = subBorrow(l0, b.l0, 0)
            (r1, borrow) = subBorrow(l1, b.l1, borrow)
            (r2, borrow) = subBorrow(l2, b.l2, borrow)
            (r3, borrow) = subBorrow(l3, b.l3, borrow)
            return (Scalar(r0, r1, r2, r3), borrow)
        }

        @inline(__always)
        func addingRaw(_ b: Scalar) -> (value: Scalar, carry: UInt64) {
            var carry: UInt64
            var r0: UInt64, r1: UInt64, r2: UInt64, r3: UInt64
            (r0, carry) = addCarry(l0, b.l0, 0)
            (r1, carry) = addCarry(l1, b.l1, carry)
            (r2, carry) = addCarry(l2, b.l2, carry)
            (r3, carry) = addCarry(l3, b.l3, carry)
            return (Scalar(r0, r1, r2, r3), carry)
        }

        /// (a + b) mod n for a, b < n.
        static func + (a: Scalar, b: Scalar) -> Scalar {
            let sum = a.addingRaw(b)
            return sum.carry != 0 || !(sum.value < n) ? sum.value.subtractingRaw(n).value : sum.value
        }

        /// n − a for a in [1, n−1]; zero stays zero.
        var negated: Scalar { isZero ? self : Self.n.subtractingRaw(self).value }

        /// a·b·2^−256 mod n (CIOS Montgomery multiplication) for a, b < n.
        @inline(__always)
        static func montgomeryProduct(_ a: Scalar, _ b: Scalar) -> Scalar {
            var t = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            montgomeryStep(&t, a, b.l0)
            montgomeryStep(&t, a, b.l1)
            montgomeryStep(&t, a, b.l2)
            montgomeryStep(&t, a, b.l3)
            let result = Scalar(t.0, t.1, t.2, t.3)
            return t.4 != 0 || !(result < n) ? result.subtractingRaw(n).value : result
        }

        /// t ← (t + a·bi + m·n) / 2^64, with m chosen so the division is exact.
        @inline(__always)
        private static func montgomeryStep(_ t: inout (UInt64, UInt64, UInt64, UInt64, UInt64), _ a: Scalar, _ bi: UInt64) {
            var k: UInt64
            var overflow: UInt64
            (t.0, k) = mac(a.l0, bi, t.0, 0)
            (t.1, k) = mac(a.l1, bi, t.1, k)
            (t.2, k) = mac(a.l2, bi, t.2, k)
            (t.3, k) = mac(a.l3, bi, t.3, k)
            (t.4, overflow) = addCarry(t.4, k, 0)
            let m = t.0 &* nPrime
            (_, k) = mac(m, n.l0, t.0, 0)
            (t.0, k) = mac(m, n.l1, t.1, k)
            (t.1, k) = mac(m, n.l2, t.2, k)
            (t.2, k) = mac(m, n.l3, t.3, k)
            (t.3, k) = addCarry(t.4, k, 0)
            t.4 = overflow &+ k
        }

        /// a·b mod n when `bMontgomery` is b in Montgomery form.
        @inline(__always)
        func times(montgomery bMontgomery: Scalar) -> Scalar { Self.montgomeryProduct(self, bMontgomery) }

        var montgomery: Scalar { Self.montgomeryProduct(self, Self.rSquared) }

        /// a⁻¹·2^256 mod n for a in [1, n−1] (zero otherwise): the inverse in Montgomery form
        /// (`inverseModN`, then into Montgomery form with one product).
        var inverseMontgomery: Scalar { inverseModN.montgomery }

        /// 2^256 mod n.
        static let rModN = Scalar(0x402D_A173_2FC9_BEBF, 0x4551_2319_50B7_5FC4, 1, 0)
    }
}
