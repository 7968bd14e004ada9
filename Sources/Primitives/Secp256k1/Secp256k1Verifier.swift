extension Secp256k1 {
    /// wNAF width for the public-key streams: 2^(w−2) = 8 points per table.
    static let publicKeyWidth = 5

    /// ECDSA verification (SEC 1 §4.1.4) of r‖s (32 bytes each, big-endian) against a digest, with the
    /// same accept/reject decisions as OpenSSL: r and s in [1, n−1], e = the leftmost 256 bits of the
    /// digest, and R = u1·G + u2·Q accepted when R ≠ ∞ and x(R) mod n = r. High S is accepted.
    /// With `tables` (Q's own, `KeyTables`), u2·Q takes the faster path; the decision is the same.
    static func isValidSignature(raw rs: [UInt8], digest: [UInt8], publicKey q: AffinePoint,
                                 tables: KeyTablesCache? = nil) -> Bool {
        guard rs.count == 64 else { return false }
        let r = Scalar(bigEndian: rs, at: 0)
        let s = Scalar(bigEndian: rs, at: 32)
        guard r.isValidNonZero, s.isValidNonZero else { return false }
        let e = truncatedDigest(digest).reducedModN
        let sInverse = s.inverseMontgomery
        let u1 = e.times(montgomery: sInverse)
        let u2 = r.times(montgomery: sInverse)
        let point = tables?.tables(for: q).flatMap { linearCombination(u1: u1, u2: u2, tables: $0) }
            ?? linearCombination(u1: u1, u2: u2, q: q)
        return xCoordinate(of: point, matches: r)
    }

    /// The same check for a key given as SEC1 0x04‖x‖y that has already been validated.
    static func isValidSignature(raw rs: [UInt8], digest: [UInt8], uncompressedKey key: [UInt8],
                                 tables: KeyTablesCache? = nil) -> Bool {
        guard key.count == 65, key[0] == 0x04,
              let x = FieldElement(bigEndian: key, at: 1), let y = FieldElement(bigEndian: key, at: 33) else { return false }
        return isValidSignature(raw: rs, digest: digest, publicKey: AffinePoint(x: x, y: y), tables: tables)
    }

    /// The leftmost 256 bits of the digest as an integer (SEC 1 §4.1.3 step 5); shorter digests are
    /// taken whole, as OpenSSL does.
    static func truncatedDigest(_ digest: [UInt8]) -> Scalar {
        let used = digest.prefix(32)
        return Scalar(bigEndian: [UInt8](repeating: 0, count: 32 - used.count) + used)
    }

    /// x(R) mod n = r without leaving Jacobian coordinates: x(R) = X/Z² is r or r + n (the latter only
    /// when r + n < p), so compare X with r·Z² and (r + n)·Z².
    static func xCoordinate(of point: JacobianPoint, matches r: Scalar) -> Bool {
        guard !point.isInfinity else { return false }
        let zz = point.z.squared
        let x = point.x
        if (FieldElement(r.l0, r.l1, r.l2, r.l3) * zz).isEqual(to: x) { return true }
        guard r < Scalar.pMinusN else { return false }
        let rPlusN = r.addingRaw(Scalar.n).value
        return (FieldElement(rPlusN.l0, rPlusN.l1, rPlusN.l2, rPlusN.l3) * zz).isEqual(to: x)
    }

    /// u1·G + u2·Q by Strauss–Shamir over four wNAF streams: u1 split into 128-bit halves against the
    /// G and 2^128·G tables, u2 split by the GLV endomorphism against tables of Q and λ·Q.
    static func linearCombination(u1: Scalar, u2: Scalar, q: AffinePoint) -> JacobianPoint {
        let generator = GeneratorTable.shared
        let (k1, k2) = Endomorphism.split(u2)
        let streamQ = WNAF(k1.magnitude, width: publicKeyWidth)
        let streamLambdaQ = WNAF(k2.magnitude, width: publicKeyWidth)
        let streamLow = WNAF(Scalar(u1.l0, u1.l1, 0, 0), width: GeneratorTable.width)
        let streamHigh = WNAF(Scalar(u1.l2, u1.l3, 0, 0), width: GeneratorTable.width)

        guard let table = PublicKeyTable(q, count: 1 << (publicKeyWidth - 2)) else { return .infinity }
        let tableQ = k1.isNegative ? table.points.map(\.negated) : table.points
        let tableLambdaQ = table.points.map { point in
            k2.isNegative ? point.lambdaImage.negated : point.lambdaImage
        }

        // The loop runs in the frame where the public-key tables are affine (see PublicKeyTable);
        // generator points are scaled into it, and the result is scaled back by the common Z.
        var result = JacobianPoint.infinity
        let top = max(streamQ.count, streamLambdaQ.count, streamLow.count, streamHigh.count)
        for i in stride(from: top - 1, through: 0, by: -1) {
            if !result.isInfinity { result = result.doubled() }
            if let point = entry(tableQ, streamQ.digits[i]) { result = result.adding(point) }
            if let point = entry(tableLambdaQ, streamLambdaQ.digits[i]) { result = result.adding(point) }
            if let point = entry(generator.low, streamLow.digits[i]) { result = result.adding(point, scaledBy: table.z) }
            if let point = entry(generator.high, streamHigh.digits[i]) { result = result.adding(point, scaledBy: table.z) }
        }
        return JacobianPoint(x: result.x, y: result.y, z: result.z * table.z)
    }

    /// u1·G + u2·Q with Q's `KeyTables`: the GLV halves of u2 and u1 itself each cut into 32-bit
    /// parts, sixteen wNAF streams over 32 doublings. Nil when a GLV half is not below 2^128 (`split`
    /// promises it is; the caller then takes the general path rather than trust it).
    static func linearCombination(u1: Scalar, u2: Scalar, tables: KeyTables) -> JacobianPoint? {
        let (k1, k2) = Endomorphism.split(u2)
        let m1 = k1.magnitude, m2 = k2.magnitude
        guard (m1.l2 | m1.l3 | m2.l2 | m2.l3) == 0 else { return nil }
        let keyPoints = tables.points, keyTable = KeyTables.perTable
        let generatorPoints = GeneratorTable.Eighths.shared.points, generatorTable = GeneratorTable.Eighths.perTable
        // Stream s has its digits at s·span: 0–3 the parts of |k1| (tables 2^(32j)·Q), 4–7 those of
        // |k2| (2^(32j)·λ·Q), 8–15 those of u1 (2^(32j)·G).
        let span = WNAF.partSpan
        var digits = [Int16](repeating: 0, count: 16 * span)
        var top = 0
        for j in 0..<4 {
            top = max(top, WNAF.writeDigits(of: m1.bits(at: 32 * j, count: 32), width: KeyTables.width,
                                            into: &digits, at: j * span))
            top = max(top, WNAF.writeDigits(of: m2.bits(at: 32 * j, count: 32), width: KeyTables.width,
                                            into: &digits, at: (4 + j) * span))
        }
        for j in 0..<8 {
            top = max(top, WNAF.writeDigits(of: u1.bits(at: 32 * j, count: 32), width: GeneratorTable.Eighths.width,
                                            into: &digits, at: (8 + j) * span))
        }
        var result = JacobianPoint.infinity
        for i in stride(from: top - 1, through: 0, by: -1) {
            if !result.isInfinity { result = result.doubled() }
            for s in 0..<8 {
                let digit = digits[s * span + i]
                if digit == 0 { continue }
                let point = keyPoints[s * keyTable + Int(digit.magnitude >> 1)]
                result = result.adding((digit < 0) != (s < 4 ? k1.isNegative : k2.isNegative) ? point.negated : point)
            }
            for s in 0..<8 {
                let digit = digits[(8 + s) * span + i]
                if digit == 0 { continue }
                let point = generatorPoints[s * generatorTable + Int(digit.magnitude >> 1)]
                result = result.adding(digit < 0 ? point.negated : point)
            }
        }
        return result
    }

    @inline(__always)
    private static func entry(_ table: [AffinePoint], _ digit: Int16) -> AffinePoint? {
        if digit == 0 { return nil }
        return digit > 0 ? table[Int(digit) >> 1] : table[Int(-digit) >> 1].negated
    }
}
