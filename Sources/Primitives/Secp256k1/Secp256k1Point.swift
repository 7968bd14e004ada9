extension Secp256k1 {
    /// A finite point (x, y) on y² = x³ + 7.
    struct AffinePoint: Sendable {
        var x: FieldElement
        var y: FieldElement

        /// The base point G (SEC 2 §2.4.1).
        static let generator = AffinePoint(
            x: FieldElement(0x59F2_815B_16F8_1798, 0x029B_FCDB_2DCE_28D9, 0x55A0_6295_CE87_0B07, 0x79BE_667E_F9DC_BBAC),
            y: FieldElement(0x9C47_D08F_FB10_D4B8, 0xFD17_B448_A685_5419, 0x5DA4_FBFC_0E11_08A8, 0x483A_DA77_26A3_C465))

        static let b = FieldElement(7)

        init(x: FieldElement, y: FieldElement) {
            self.x = x
            self.y = y
        }

        var isOnCurve: Bool { y.squared.isEqual(to: x.squared * x + Self.b) }

        var negated: AffinePoint { AffinePoint(x: x, y: -y) }

        /// λ·P = (β·x, y), the GLV endomorphism (`Endomorphism`).
        var lambdaImage: AffinePoint { AffinePoint(x: x * Endomorphism.beta, y: y) }

        /// The point for a SEC1 encoding (SEC 1 §2.3.4): 0x04‖x‖y, or 0x02/0x03‖x with y recovered as
        /// √(x³ + 7) of the given parity. Rejects other lengths and prefixes, coordinates ≥ p and points
        /// off the curve; SEC1 has no encoding of infinity here beyond the single byte 0x00, also rejected.
        init?(sec1 bytes: [UInt8]) {
            guard let prefix = bytes.first, let x = FieldElement(bigEndian: bytes, at: 1) else { return nil }
            switch (prefix, bytes.count) {
            case (0x04, 65):
                guard let y = FieldElement(bigEndian: bytes, at: 33) else { return nil }
                self.init(x: x, y: y)
                guard isOnCurve else { return nil }
            case (0x02, 33), (0x03, 33):
                guard let root = (x.squared * x + Self.b).squareRoot else { return nil }
                let wantOdd = prefix == 0x03
                self.init(x: x, y: root.isOdd == wantOdd ? root : -root)
            default:
                return nil
            }
        }

        /// 0x04‖x‖y, or 0x02/0x03‖x when `compressed`.
        func sec1(compressed: Bool) -> [UInt8] {
            compressed
                ? [y.isOdd ? 0x03 : 0x02] + x.bigEndianBytes
                : [0x04] + x.bigEndianBytes + y.bigEndianBytes
        }
    }

    /// (X, Y, Z) standing for (X/Z², Y/Z³); Z = 0 is the point at infinity.
    struct JacobianPoint: Sendable {
        var x: FieldElement
        var y: FieldElement
        var z: FieldElement

        static let infinity = JacobianPoint(x: .one, y: .one, z: .zero)

        init(x: FieldElement, y: FieldElement, z: FieldElement) {
            self.x = x
            self.y = y
            self.z = z
        }

        init(_ point: AffinePoint) { self.init(x: point.x, y: point.y, z: .one) }

        var isInfinity: Bool { z.isZero }

        var negated: JacobianPoint { JacobianPoint(x: x, y: -y, z: z) }

        /// The affine point, or nil for infinity (one field inversion).
        var affine: AffinePoint? {
            guard !isInfinity else { return nil }
            let zInverse = z.inverse
            let zInverse2 = zInverse.squared
            return AffinePoint(x: (x * zInverse2).normalized, y: (y * zInverse2 * zInverse).normalized)
        }

        /// 2^count·P.
        func doubled(times count: Int) -> JacobianPoint {
            var point = self
            for _ in 0..<count { point = point.doubled() }
            return point
        }

        /// 2P for a = 0 ("dbl-2009-l", Explicit-Formulas Database): 2M + 5S.
        @inline(__always)
        func doubled() -> JacobianPoint {
            let a = x.squared
            let b = y.squared
            let c = b.squared
            let d = ((x + b).squared - a - c).doubled
            let e = a.doubled + a
            let f = e.squared
            let x3 = f - d.doubled
            let c8 = c.doubled.doubled.doubled
            let y3 = e * (d - x3) - c8
            let z3 = (y * z).doubled
            return JacobianPoint(x: x3, y: y3, z: z3)
        }

        /// P + Q for Jacobian P and Q: 12M + 4S, with the doubling and inverse cases handled.
        @inline(__always)
        func adding(_ q: JacobianPoint) -> JacobianPoint {
            if isInfinity { return q }
            if q.isInfinity { return self }
            let z1z1 = z.squared
            let z2z2 = q.z.squared
            let u1 = x * z2z2
            let u2 = q.x * z1z1
            let s1 = y * z2z2 * q.z
            let s2 = q.y * z1z1 * z
            return combine(u1: u1, u2: u2, s1: s1, s2: s2, zProduct: z * q.z)
        }

        /// P + Q for affine Q: 8M + 3S.
        @inline(__always)
        func adding(_ q: AffinePoint) -> JacobianPoint {
            if isInfinity { return JacobianPoint(q) }
            let z1z1 = z.squared
            let u2 = q.x * z1z1
            let s2 = q.y * z1z1 * z
            return combine(u1: x, u2: u2, s1: y, s2: s2, zProduct: z)
        }

        /// P + Q for Q = (x·s², y·s³) given as (x, y) and the scale s: 9M + 3S. The main loop works in a
        /// frame where the public-key table is affine (see `PublicKeyTable`); generator points enter it
        /// this way, at one multiplication more than a plain mixed addition.
        @inline(__always)
        func adding(_ q: AffinePoint, scaledBy scale: FieldElement) -> JacobianPoint {
            if isInfinity {
                let scale2 = scale.squared
                return JacobianPoint(x: q.x * scale2, y: q.y * scale2 * scale, z: .one)
            }
            let zs = z * scale
            let zs2 = zs.squared
            let u2 = q.x * zs2
            let s2 = q.y * zs2 * zs
            return combine(u1: x, u2: u2, s1: y, s2: s2, zProduct: z)
        }

        /// P + Q for affine Q with the ratio h = Z3/Z1 as well; nil when P = ∞ or P = ±Q, which the
        /// table builder rules out.
        func addingReportingRatio(_ q: AffinePoint) -> (sum: JacobianPoint, ratio: FieldElement)? {
            guard !isInfinity else { return nil }
            let z1z1 = z.squared
            let u2 = q.x * z1z1
            let s2 = q.y * z1z1 * z
            let h = u2 - x
            guard !h.isZero else { return nil }
            return (combine(u1: x, u2: u2, s1: y, s2: s2, zProduct: z), h)
        }

        /// The shared tail of both additions, on U1 = X1·Z2², U2 = X2·Z1², S1 = Y1·Z2³, S2 = Y2·Z1³.
        @inline(__always)
        private func combine(
            u1: FieldElement, u2: FieldElement, s1: FieldElement, s2: FieldElement, zProduct: FieldElement
        ) -> JacobianPoint {
            let h = u2 - u1
            let i = s2 - s1
            if h.isZero {
                // Same x: either the same point (double it) or its negation (the sum is infinity).
                return i.isZero ? doubled() : .infinity
            }
            let h2 = h.squared
            let h3 = h * h2
            let t = u1 * h2
            let x3 = i.squared - h3 - t.doubled
            let y3 = i * (t - x3) - h3 * s1
            return JacobianPoint(x: x3, y: y3, z: zProduct * h)
        }
    }
}
