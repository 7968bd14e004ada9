extension Secp256k1 {
    /// Q, 3Q, 5Q, … sharing one Jacobian Z, so the main loop can add them as affine points (8M + 3S
    /// instead of 12M + 4S) and fold Z in once at the end. Addition and doubling on y² = x³ + b never use
    /// b, so scaling every point by a common Z (an isomorphism onto another such curve) is harmless;
    /// libsecp256k1's ecmult uses the same "effective affine" trick.
    struct PublicKeyTable: Sendable {
        /// (X_i, Y_i) of (2i+1)·Q = (X_i, Y_i, z) in Jacobian coordinates.
        let points: [AffinePoint]
        /// The common Jacobian Z.
        let z: FieldElement

        /// nil only when some (2i+1)·Q meets ±2Q, impossible for a point of prime order n > 2·count.
        init?(_ q: AffinePoint, count: Int) {
            let twice = JacobianPoint(q).doubled()
            // In the frame scaled by c = Z(2Q), 2Q is the affine (X, Y) and Q is (x·c², y·c³).
            let c = twice.z
            let c2 = c.squared
            let step = AffinePoint(x: twice.x, y: twice.y)
            var current = JacobianPoint(x: q.x * c2, y: q.y * c2 * c, z: .one)
            var xs = [current.x], ys = [current.y], ratios: [FieldElement] = []
            for _ in 1..<count {
                guard let next = current.addingReportingRatio(step) else { return nil }
                current = next.sum
                xs.append(current.x)
                ys.append(current.y)
                ratios.append(next.ratio)
            }
            // Entry i has Z_i = Z_last / ρ_i with ρ_i the product of the ratios after it: scale it by ρ_i.
            var points = [AffinePoint](repeating: .generator, count: count)
            var rho = FieldElement.one
            for index in stride(from: count - 1, through: 0, by: -1) {
                let rho2 = rho.squared
                points[index] = AffinePoint(x: xs[index] * rho2, y: ys[index] * rho2 * rho)
                if index > 0 { rho = rho * ratios[index - 1] }
            }
            self.points = points
            z = current.z * c
        }
    }
}
