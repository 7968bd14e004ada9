extension Secp256k1.Scalar {
    /// a⁻¹ mod n for a in [1, n−1] (zero for anything else), by Bernstein and Yang's safegcd
    /// ("Fast constant-time gcd computation and modular inversion", 2019) in its variable-time form:
    /// only public values are inverted here (an ECDSA signature's s). Batches of 62 divsteps run on
    /// the low bits of f and g alone and come out as one 2×2 transition matrix, which is then
    /// applied to the full numbers, held as five signed 62-bit limbs. Invariants (mod n):
    /// f ≡ d·a and g ≡ e·a; f starts as n and g as a, and when g reaches 0, f is ±1.
    var inverseModN: Secp256k1.Scalar {
        guard isValidNonZero else { return .zero }
        typealias Limbs = Secp256k1.SignedLimbs62
        let modulus = Limbs(Self.n)
        var f = modulus, g = Limbs(self)
        var d = Limbs.zero, e = Limbs.one
        var eta = -1
        while !g.isZero {
            let (nextEta, matrix) = Self.divsteps62(eta: eta, f: f.l0, g: g.l0)
            eta = nextEta
            Limbs.update(&f, &g, by: matrix)
            Limbs.update(&d, &e, by: matrix, modulus: modulus)
        }
        return d.normalized(sign: f, modulus: modulus)
    }

    /// A 2×2 matrix (u v; q r) with 2^62·(f′, g′) = (u·f + v·g, q·f + r·g).
    typealias TransitionMatrix = (u: Int64, v: Int64, q: Int64, r: Int64)

    /// 62 divsteps from (eta, f, g) on their low 62 bits, which is all they depend on (f odd). Zeros
    /// at the bottom of g are shifted out in one step; otherwise up to six low bits of g are
    /// cleared at once with a multiple of f, as the variable-time variant does.
    static func divsteps62(eta: Int, f: Int64, g: Int64) -> (eta: Int, matrix: TransitionMatrix) {
        var eta = eta, f = f, g = g
        var u: Int64 = 1, v: Int64 = 0, q: Int64 = 0, r: Int64 = 1
        var left = 62
        while true {
            let zeros = Swift.min(left, g.trailingZeroBitCount)
            eta -= zeros
            left -= zeros
            g >>= Int64(zeros)
            u <<= Int64(zeros)
            v <<= Int64(zeros)
            if left == 0 { break }
            // g is odd here.
            if eta < 0 {
                (eta, f, u, v, g, q, r) = (-eta, g, q, r, 0 &- f, 0 &- u, 0 &- v)
            }
            let limit = Swift.min(eta + 1, left, 6)
            let mask: Int64 = (1 << Int64(limit)) - 1
            // f·(f² − 2) ≡ −f⁻¹ (mod 64) for odd f (f² ≡ 1 mod 8 makes f·(2 − f²) the inverse), so
            // g + w·f ≡ 0 in the low `limit` bits.
            let w = (f &* g &* (f &* f &- 2)) & mask
            g = g &+ w &* f
            q = q &+ w &* u
            r = r &+ w &* v
        }
        return (eta, (u, v, q, r))
    }

}

extension Secp256k1 {
    /// A signed integer as Σ limb_i·2^(62i): limbs 0–3 in [0, 2^62) once carried, limb 4 signed.
    /// safegcd's numbers (f, g, d, e) stay within ±2^257, far inside the 310 bits.
    struct SignedLimbs62 {
        var l0: Int64, l1: Int64, l2: Int64, l3: Int64, l4: Int64

        static let mask: Int64 = (1 << 62) - 1
        static let zero = SignedLimbs62(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
        static let one = SignedLimbs62(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)
        /// n⁻¹ mod 2^62 (`nPrime` is −n⁻¹ mod 2^64).
        static let modulusInverse62 = Int64(bitPattern: 0 &- Scalar.nPrime) & mask

        init(l0: Int64, l1: Int64, l2: Int64, l3: Int64, l4: Int64) {
            (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
        }

        /// A scalar's raw value (below 2^256).
        init(_ s: Scalar) {
            let m = UInt64(bitPattern: Self.mask)
            l0 = Int64(bitPattern: s.l0 & m)
            l1 = Int64(bitPattern: (s.l0 >> 62 | s.l1 << 2) & m)
            l2 = Int64(bitPattern: (s.l1 >> 60 | s.l2 << 4) & m)
            l3 = Int64(bitPattern: (s.l2 >> 58 | s.l3 << 6) & m)
            l4 = Int64(bitPattern: s.l3 >> 56)
        }

        var isZero: Bool { (l0 | l1 | l2 | l3 | l4) == 0 }

        var isNegative: Bool { l4 < 0 }

        /// (f, g) ← ((u·f + v·g) / 2^62, (q·f + r·g) / 2^62): exact, the matrix clears the low 62 bits.
        static func update(_ f: inout SignedLimbs62, _ g: inout SignedLimbs62, by t: Scalar.TransitionMatrix) {
            let (u, v, q, r) = (Int128(t.u), Int128(t.v), Int128(t.q), Int128(t.r))
            var cf = u * Int128(f.l0) + v * Int128(g.l0)
            var cg = q * Int128(f.l0) + r * Int128(g.l0)
            cf >>= 62
            cg >>= 62
            func step(_ fi: Int64, _ gi: Int64) -> (Int64, Int64) {
                cf += u * Int128(fi) + v * Int128(gi)
                cg += q * Int128(fi) + r * Int128(gi)
                let out = (Int64(truncatingIfNeeded: cf) & mask, Int64(truncatingIfNeeded: cg) & mask)
                cf >>= 62
                cg >>= 62
                return out
            }
            let (f0, g0) = step(f.l1, g.l1)
            let (f1, g1) = step(f.l2, g.l2)
            let (f2, g2) = step(f.l3, g.l3)
            let (f3, g3) = step(f.l4, g.l4)
            f = SignedLimbs62(l0: f0, l1: f1, l2: f2, l3: f3, l4: Int64(cf))
            g = SignedLimbs62(l0: g0, l1: g1, l2: g2, l3: g3, l4: Int64(cg))
        }

        /// (d, e) ← ((u·d + v·e + md·M) / 2^62, (q·d + r·e + me·M) / 2^62) with md, me chosen so
        /// that the divisions are exact; for d, e in (−2M, M) the results stay there.
        static func update(_ d: inout SignedLimbs62, _ e: inout SignedLimbs62, by t: Scalar.TransitionMatrix,
                           modulus: SignedLimbs62) {
            let dSign = d.l4 >> 63, eSign = e.l4 >> 63
            var md = (t.u & dSign) &+ (t.v & eSign)
            var me = (t.q & dSign) &+ (t.r & eSign)
            let (u, v, q, r) = (Int128(t.u), Int128(t.v), Int128(t.q), Int128(t.r))
            var cd = u * Int128(d.l0) + v * Int128(e.l0)
            var ce = q * Int128(d.l0) + r * Int128(e.l0)
            md &-= (modulusInverse62 &* Int64(truncatingIfNeeded: cd) &+ md) & mask
            me &-= (modulusInverse62 &* Int64(truncatingIfNeeded: ce) &+ me) & mask
            let (mdWide, meWide) = (Int128(md), Int128(me))
            cd += Int128(modulus.l0) * mdWide
            ce += Int128(modulus.l0) * meWide
            cd >>= 62
            ce >>= 62
            func step(_ di: Int64, _ ei: Int64, _ mi: Int64) -> (Int64, Int64) {
                cd += u * Int128(di) + v * Int128(ei) + Int128(mi) * mdWide
                ce += q * Int128(di) + r * Int128(ei) + Int128(mi) * meWide
                let out = (Int64(truncatingIfNeeded: cd) & mask, Int64(truncatingIfNeeded: ce) & mask)
                cd >>= 62
                ce >>= 62
                return out
            }
            let (d0, e0) = step(d.l1, e.l1, modulus.l1)
            let (d1, e1) = step(d.l2, e.l2, modulus.l2)
            let (d2, e2) = step(d.l3, e.l3, modulus.l3)
            let (d3, e3) = step(d.l4, e.l4, modulus.l4)
            d = SignedLimbs62(l0: d0, l1: d1, l2: d2, l3: d3, l4: Int64(cd))
            e = SignedLimbs62(l0: e0, l1: e1, l2: e2, l3: e3, l4: Int64(ce))
        }

        /// self·sign mod M in [0, M), for self in (−2M, M) and sign = ±1.
        func normalized(sign: SignedLimbs62, modulus: SignedLimbs62) -> Scalar {
            var value = self
            if value.isNegative { value = value.adding(modulus) }
            if sign.isNegative { value = value.negated }
            if value.isNegative { value = value.adding(modulus) }
            let (a, b, c, d, e) = (UInt64(bitPattern: value.l0), UInt64(bitPattern: value.l1), UInt64(bitPattern: value.l2),
                                   UInt64(bitPattern: value.l3), UInt64(bitPattern: value.l4))
            return Scalar(a | b << 62, b >> 2 | c << 60, c >> 4 | d << 58, d >> 6 | e << 56)
        }

        private func adding(_ other: SignedLimbs62) -> SignedLimbs62 {
            SignedLimbs62(l0: l0 + other.l0, l1: l1 + other.l1, l2: l2 + other.l2, l3: l3 + other.l3, l4: l4 + other.l4).carried
        }

        private var negated: SignedLimbs62 {
            SignedLimbs62(l0: -l0, l1: -l1, l2: -l2, l3: -l3, l4: -l4).carried
        }

        /// Limbs 0–3 brought into [0, 2^62), their excess carried up into the signed top limb.
        private var carried: SignedLimbs62 {
            var r = self
            r.l1 += r.l0 >> 62
            r.l0 &= Self.mask
            r.l2 += r.l1 >> 62
            r.l1 &= Self.mask
            r.l3 += r.l2 >> 62
            r.l2 &= Self.mask
            r.l4 += r.l3 >> 62
            r.l3 &= Self.mask
            return r
        }
    }
}
