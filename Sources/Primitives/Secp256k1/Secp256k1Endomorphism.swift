extension Secp256k1 {
    /// The GLV endomorphism λ·(x, y) = (β·x, y): one field multiplication instead of a 256-bit scalar
    /// multiplication, so k·Q = k1·Q + k2·(λQ) with k1, k2 about 128 bits each (Gallant–Lambert–Vanstone
    /// 2001; the lattice constants follow Hankerson–Menezes–Vanstone, Guide to ECC, Algorithm 3.74).
    enum Endomorphism {
        /// β, a primitive cube root of unity mod p.
        static let beta = FieldElement(0xC139_6C28_7195_01EE, 0x9CF0_4975_12F5_8995, 0x6E64_479E_AC34_34E9, 0x7AE9_6A2B_657C_0710)
        /// λ, the matching cube root of unity mod n.
        static let lambda = Scalar(0xDF02_967C_1B23_BD72, 0x122E_22EA_2081_6678, 0xA526_1C02_8812_645A, 0x5363_AD4C_C05C_30E0)
        /// round(2^272·b2/n) and round(2^272·(−b1)/n), for the rounded divisions below.
        static let g1 = Scalar(0x90E4_9284_EB15_3DAB, 0xD221_A7D4_6BCD_E86C, 0x3086, 0)
        static let g2 = Scalar(0x7FA9_0ABF_E4C4_2212, 0x7ED6_010E_8828_6F54, 0xE443, 0)
        /// −b1, −b2 and −λ mod n, in Montgomery form.
        static let minusB1Montgomery = Scalar(0xC504_68D0_0AD9_263C, 0x1B1C_8205_FAA6_ED42, 0x1571_B4AE_8AC4_7F71, 0x2212_08AC_9DF5_06C6)
        static let minusB2Montgomery = Scalar(0x0CAC_5E50_6A14_4696, 0x1E8A_8DC5_F3BA_5939, 0x176C_DF65_BA24_4FCE, 0xC255_75EB_8E17_3580)
        static let minusLambdaMontgomery = Scalar(0xCF54_734F_06A3_D4A3, 0x8E1A_F539_2B82_0BEE, 0x8C56_99F9_AD96_826D, 0xACD7_BFE8_7AA7_29C6)

        /// k = k1 + λ·k2 (mod n); each half is returned as a magnitude below 2^128 and a sign.
        static func split(_ k: Scalar) -> (k1: SignedHalf, k2: SignedHalf) {
            let c1 = roundedShift272(k, g1)
            let c2 = roundedShift272(k, g2)
            let k2 = c1.times(montgomery: minusB1Montgomery) + c2.times(montgomery: minusB2Montgomery)
            let k1 = k2.times(montgomery: minusLambdaMontgomery) + k
            return (SignedHalf(k1), SignedHalf(k2))
        }

        /// round(k·g / 2^272) for g < 2^144; the result is below 2^128.
        static func roundedShift272(_ k: Scalar, _ g: Scalar) -> Scalar {
            let t = wideProduct(k, g)
            let shifted = Scalar(t.4 >> 16 | t.5 << 48, t.5 >> 16 | t.6 << 48, t.6 >> 16 | t.7 << 48, t.7 >> 16)
            let roundUp = (t.4 >> 15) & 1
            return shifted.addingRaw(Scalar(roundUp, 0, 0, 0)).value
        }
    }

    /// A scalar mod n read as a signed number in (−n/2, n/2): the GLV halves are short either way.
    struct SignedHalf: Sendable {
        let magnitude: Scalar
        let isNegative: Bool

        init(_ value: Scalar) {
            // Values above n/2 stand for value − n; their magnitude n − value is the short one.
            let short = value.l3 == 0 && value.l2 == 0
            magnitude = short ? value : value.negated
            isNegative = !short
        }
    }
}

/// The full 512-bit product of two 256-bit integers.
func wideProduct(
    _ a: Secp256k1.Scalar, _ b: Secp256k1.Scalar
) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
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
    return (t0, t1, t2, t3, t4, t5, t6, t7)
}
