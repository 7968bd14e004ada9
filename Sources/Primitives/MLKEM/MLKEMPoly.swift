/// A polynomial of R_q = Z_q[X]/(X^256 + 1), q = 3329 (FIPS 203 §2.4), as 256 signed 16-bit
/// coefficients. Arithmetic is branch-free with fixed loop bounds and no secret-dependent indices:
/// Montgomery and Barrett reduction as in the Kyber reference implementation, so it is safe on
/// secret polynomials (s, e, r, the message).
struct MLKEMPoly: Sendable {
    static let n = 256
    static let q: Int16 = 3329
    /// q^-1 mod 2^16, as a signed value.
    static let qInverse: Int16 = -3327

    var c: [Int16]

    init() { c = [Int16](repeating: 0, count: Self.n) }

    /// The 128 powers ζ^BitRev7(i) of ζ = 17 (FIPS 203 §4.3), times the Montgomery factor 2^16,
    /// centred in (−q/2, q/2]: the constants the NTT multiplies by (public).
    static let zetas: [Int16] = {
        func bitReverse7(_ i: Int) -> Int { (0..<7).reduce(0) { ($0 << 1) | ((i >> $1) & 1) } }
        return (0..<128).map { i in
            var power = 1
            for _ in 0..<bitReverse7(i) { power = power * 17 % 3329 }
            var value = power * 65536 % 3329
            if value > 3329 / 2 { value -= 3329 }
            return Int16(value)
        }
    }()

    /// a·2^-16 mod q, for |a| < q·2^15; the result lies in (−q, q).
    @inline(__always)
    static func montgomeryReduce(_ a: Int32) -> Int16 {
        let t = Int16(truncatingIfNeeded: a) &* qInverse
        return Int16(truncatingIfNeeded: (a &- Int32(t) &* Int32(q)) >> 16)
    }

    /// The representative of a mod q in {−(q−1)/2, …, (q−1)/2}.
    @inline(__always)
    static func barrettReduce(_ a: Int16) -> Int16 {
        let v: Int32 = ((1 << 26) + Int32(q) / 2) / Int32(q)
        let t = Int16(truncatingIfNeeded: (v &* Int32(a) &+ (1 << 25)) >> 26)
        return a &- t &* q
    }

    @inline(__always)
    static func fqmul(_ a: Int16, _ b: Int16) -> Int16 { montgomeryReduce(Int32(a) &* Int32(b)) }

    /// a mod q in [0, q) for a in (−q, q): adds q under a sign mask, without a branch.
    @inline(__always)
    static func positive(_ a: Int16) -> Int16 { a &+ ((a >> 15) & q) }

    mutating func reduce() {
        c.withUnsafeMutableBufferPointer { r in
            for i in 0..<Self.n { r[i] = Self.barrettReduce(r[i]) }
        }
    }

    /// Forward NTT (FIPS 203 Algorithm 9) in place, then reduced; output in bit-reversed order.
    mutating func ntt() {
        Self.zetas.withUnsafeBufferPointer { zetas in
            c.withUnsafeMutableBufferPointer { r in
                var k = 1
                var length = 128
                while length >= 2 {
                    var start = 0
                    while start < 256 {
                        let zeta = zetas[k]
                        k += 1
                        for j in start..<(start + length) {
                            let t = Self.fqmul(zeta, r[j + length])
                            r[j + length] = r[j] &- t
                            r[j] = r[j] &+ t
                        }
                        start += 2 * length
                    }
                    length >>= 1
                }
            }
        }
        reduce()
    }

    /// Inverse NTT (FIPS 203 Algorithm 10), also multiplying by the Montgomery factor 2^16, so a
    /// product of `baseMultiplyAccumulate` comes back in the normal domain.
    mutating func inverseNTTToMontgomery() {
        let f: Int16 = 1441  // 2^32 / 128 mod q
        Self.zetas.withUnsafeBufferPointer { zetas in
            c.withUnsafeMutableBufferPointer { r in
                var k = 127
                var length = 2
                while length <= 128 {
                    var start = 0
                    while start < 256 {
                        let zeta = zetas[k]
                        k -= 1
                        for j in start..<(start + length) {
                            let t = r[j]
                            r[j] = Self.barrettReduce(t &+ r[j + length])
                            r[j + length] = Self.fqmul(zeta, r[j + length] &- t)
                        }
                        start += 2 * length
                    }
                    length <<= 1
                }
                for j in 0..<256 { r[j] = Self.fqmul(r[j], f) }
            }
        }
    }

    /// Multiplies every coefficient by 2^16 (into the Montgomery domain).
    mutating func toMontgomery() {
        let f: Int16 = 1353  // 2^32 mod q
        c.withUnsafeMutableBufferPointer { r in
            for i in 0..<Self.n { r[i] = Self.montgomeryReduce(Int32(r[i]) &* Int32(f)) }
        }
    }

    mutating func add(_ other: MLKEMPoly) {
        c.withUnsafeMutableBufferPointer { r in
            other.c.withUnsafeBufferPointer { b in
                for i in 0..<Self.n { r[i] = r[i] &+ b[i] }
            }
        }
    }

    /// self = other − self.
    mutating func subtract(from other: MLKEMPoly) {
        c.withUnsafeMutableBufferPointer { r in
            other.c.withUnsafeBufferPointer { b in
                for i in 0..<Self.n { r[i] = b[i] &- r[i] }
            }
        }
    }

    /// Σ a[i] ∘ b[i] in the NTT domain (FIPS 203 Algorithms 11–12), times 2^-16, reduced.
    /// Each product term is below 2q in size, so k = 3 of them stay within Int16 before the reduction.
    static func baseMultiplyAccumulate(_ a: [MLKEMPoly], _ b: [MLKEMPoly]) -> MLKEMPoly {
        var out = MLKEMPoly()
        zetas.withUnsafeBufferPointer { zetas in
            out.c.withUnsafeMutableBufferPointer { r in
                for index in 0..<a.count {
                    a[index].c.withUnsafeBufferPointer { x in
                        b[index].c.withUnsafeBufferPointer { y in
                            for i in 0..<64 {
                                let zeta = zetas[64 + i]
                                var base = 4 * i
                                // (x0 + x1·X)(y0 + y1·X) mod (X² − ζ), then with −ζ for the odd pair.
                                r[base] = r[base] &+ fqmul(fqmul(x[base + 1], y[base + 1]), zeta) &+ fqmul(x[base], y[base])
                                r[base + 1] = r[base + 1] &+ fqmul(x[base], y[base + 1]) &+ fqmul(x[base + 1], y[base])
                                base += 2
                                r[base] = r[base] &+ fqmul(fqmul(x[base + 1], y[base + 1]), 0 &- zeta) &+ fqmul(x[base], y[base])
                                r[base + 1] = r[base + 1] &+ fqmul(x[base], y[base + 1]) &+ fqmul(x[base + 1], y[base])
                            }
                        }
                    }
                }
            }
        }
        out.reduce()
        return out
    }
}
