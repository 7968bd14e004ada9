extension Secp256k1 {
    /// Affine odd multiples of G and of 2^128·G, so u1·G = lo·G + hi·(2^128·G) runs as two 128-bit wNAF
    /// streams with mixed additions. Built once, on first use; a static let is initialised thread-safely.
    struct GeneratorTable: Sendable {
        /// wNAF width for the G streams: 2^(w−2) points per table.
        static let width = 12

        /// (2i+1)·G for i < 2^(width−2).
        let low: [AffinePoint]
        /// (2i+1)·2^128·G.
        let high: [AffinePoint]

        static let shared = GeneratorTable()

        private init() {
            let g = JacobianPoint(.generator)
            low = Self.oddMultiples(of: g, count: 1 << (Self.width - 2))
            high = Self.oddMultiples(of: g.doubled(times: 128), count: 1 << (Self.width - 2))
        }

        /// P, 3P, 5P, … in affine form, normalised together with one field inversion.
        static func oddMultiples(of point: JacobianPoint, count: Int) -> [AffinePoint] {
            oddMultiples(of: [point], count: count)
        }

        /// `count` odd multiples of each point, table after table, all normalised with one inversion.
        static func oddMultiples(of points: [JacobianPoint], count: Int) -> [AffinePoint] {
            var jacobian: [JacobianPoint] = []
            jacobian.reserveCapacity(points.count * count)
            for point in points {
                let twice = point.doubled()
                jacobian.append(point)
                while jacobian.count % count != 0 { jacobian.append(jacobian[jacobian.count - 1].adding(twice)) }
            }
            return batchAffine(jacobian)
        }

        /// Montgomery's trick: one inversion of the product of all Z, then two multiplications per point.
        /// No point may be at infinity.
        static func batchAffine(_ points: [JacobianPoint]) -> [AffinePoint] {
            var prefix = [FieldElement](repeating: .one, count: points.count)
            var running = FieldElement.one
            for (index, point) in points.enumerated() {
                running = running * point.z
                prefix[index] = running
            }
            var inverse = running.inverse
            var out = [AffinePoint](repeating: .generator, count: points.count)
            for index in points.indices.reversed() {
                let zInverse = index == 0 ? inverse : inverse * prefix[index - 1]
                inverse = inverse * points[index].z
                let zInverse2 = zInverse.squared
                out[index] = AffinePoint(
                    x: (points[index].x * zInverse2).normalized,
                    y: (points[index].y * zInverse2 * zInverse).normalized)
            }
            return out
        }
    }
}
