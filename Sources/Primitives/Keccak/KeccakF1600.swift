/// The Keccak-f[1600] permutation (FIPS 202 §3), written natively: OpenSSL 3.0's EVP cannot squeeze
/// a SHAKE twice, and ML-KEM's matrix sampling wants an open-ended stream (see docs/xwing.md for the
/// measurement that chose this over EVP).
enum KeccakF1600 {
    /// ι's round constants RC[ir] (FIPS 202 §3.2.5), computed by rc(t) in the standard.
    static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]

    @inline(__always)
    static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &<< n) | (x &>> (64 &- n)) }

    /// Keccak-f[1600] over the 25 lanes (FIPS 202 §3.3: θ, ρ, π, χ, ι for 24 rounds), in locals so
    /// the optimiser keeps the state in registers. Data-independent: no branch or index on the state.
    static func permute(_ s: UnsafeMutablePointer<UInt64>) {
        var a0 = s[0]
        var a1 = s[1]
        var a2 = s[2]
        var a3 = s[3]
        var a4 = s[4]
        var a5 = s[5]
        var a6 = s[6]
        var a7 = s[7]
        var a8 = s[8]
        var a9 = s[9]
        var a10 = s[10]
        var a11 = s[11]
        var a12 = s[12]
        var a13 = s[13]
        var a14 = s[14]
        var a15 = s[15]
        var a16 = s[16]
        var a17 = s[17]
        var a18 = s[18]
        var a19 = s[19]
        var a20 = s[20]
        var a21 = s[21]
        var a22 = s[22]
        var a23 = s[23]
        var a24 = s[24]
        for round in 0..<24 {
            let c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20
            let c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21
            let c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22
            let c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23
            let c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24
            let d0 = c4 ^ rotl(c1, 1)
            let d1 = c0 ^ rotl(c2, 1)
            let d2 = c1 ^ rotl(c3, 1)
            let d3 = c2 ^ rotl(c4, 1)
            let d4 = c3 ^ rotl(c0, 1)
            let b0 = a0 ^ d0
            let b10 = rotl(a1 ^ d1, 1)
            let b20 = rotl(a2 ^ d2, 62)
            let b5 = rotl(a3 ^ d3, 28)
            let b15 = rotl(a4 ^ d4, 27)
            let b16 = rotl(a5 ^ d0, 36)
            let b1 = rotl(a6 ^ d1, 44)
            let b11 = rotl(a7 ^ d2, 6)
            let b21 = rotl(a8 ^ d3, 55)
            let b6 = rotl(a9 ^ d4, 20)
            let b7 = rotl(a10 ^ d0, 3)
            let b17 = rotl(a11 ^ d1, 10)
            let b2 = rotl(a12 ^ d2, 43)
            let b12 = rotl(a13 ^ d3, 25)
            let b22 = rotl(a14 ^ d4, 39)
            let b23 = rotl(a15 ^ d0, 41)
            let b8 = rotl(a16 ^ d1, 45)
            let b18 = rotl(a17 ^ d2, 15)
            let b3 = rotl(a18 ^ d3, 21)
            let b13 = rotl(a19 ^ d4, 8)
            let b14 = rotl(a20 ^ d0, 18)
            let b24 = rotl(a21 ^ d1, 2)
            let b9 = rotl(a22 ^ d2, 61)
            let b19 = rotl(a23 ^ d3, 56)
            let b4 = rotl(a24 ^ d4, 14)
            a0 = b0 ^ (~b1 & b2)
            a1 = b1 ^ (~b2 & b3)
            a2 = b2 ^ (~b3 & b4)
            a3 = b3 ^ (~b4 & b0)
            a4 = b4 ^ (~b0 & b1)
            a5 = b5 ^ (~b6 & b7)
            a6 = b6 ^ (~b7 & b8)
            a7 = b7 ^ (~b8 & b9)
            a8 = b8 ^ (~b9 & b5)
            a9 = b9 ^ (~b5 & b6)
            a10 = b10 ^ (~b11 & b12)
            a11 = b11 ^ (~b12 & b13)
            a12 = b12 ^ (~b13 & b14)
            a13 = b13 ^ (~b14 & b10)
            a14 = b14 ^ (~b10 & b11)
            a15 = b15 ^ (~b16 & b17)
            a16 = b16 ^ (~b17 & b18)
            a17 = b17 ^ (~b18 & b19)
            a18 = b18 ^ (~b19 & b15)
            a19 = b19 ^ (~b15 & b16)
            a20 = b20 ^ (~b21 & b22)
            a21 = b21 ^ (~b22 & b23)
            a22 = b22 ^ (~b23 & b24)
            a23 = b23 ^ (~b24 & b20)
            a24 = b24 ^ (~b20 & b21)
            a0 ^= roundConstants[round]
        }
        s[0] = a0
        s[1] = a1
        s[2] = a2
        s[3] = a3
        s[4] = a4
        s[5] = a5
        s[6] = a6
        s[7] = a7
        s[8] = a8
        s[9] = a9
        s[10] = a10
        s[11] = a11
        s[12] = a12
        s[13] = a13
        s[14] = a14
        s[15] = a15
        s[16] = a16
        s[17] = a17
        s[18] = a18
        s[19] = a19
        s[20] = a20
        s[21] = a21
        s[22] = a22
        s[23] = a23
        s[24] = a24
    }
}
