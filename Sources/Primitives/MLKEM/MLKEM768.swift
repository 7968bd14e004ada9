/// ML-KEM-768 (FIPS 203): k = 3, η1 = η2 = 2, d_u = 10, d_v = 4. Written natively because Debian 12's
/// OpenSSL 3.0 and libsodium 1.0.18 have no ML-KEM. Secret-dependent work (noise sampling, NTT
/// arithmetic, decryption, the re-encryption check and the implicit-rejection choice) has no
/// secret-dependent branch or table index; see docs/xwing.md for how that was checked.
public enum MLKEM768 {
    public static let encapsulationKeySize = 1184
    public static let decapsulationKeySize = 2400
    public static let ciphertextSize = 1088
    public static let sharedSecretSize = 32
    public static let seedSize = 32
    static let k = 3
    static let polyBytes = 384

    /// ML-KEM.KeyGen_internal(d, z) (Algorithm 16): returns (ek, dk).
    public static func keyGen(d: [UInt8], z: [UInt8]) throws(CryptoError) -> (encapsulationKey: [UInt8], decapsulationKey: [UInt8]) {
        let key = try MLKEMPrivateKey(d: d, z: z)
        return (key.publicKey.bytes, key.encoded())
    }

    /// ML-KEM.Encaps_internal(ek, m) (Algorithm 17) after the encapsulation-key check of §7.2.
    /// `randomness` is m: 32 bytes, from a fresh random source except in known-answer tests.
    public static func encapsulate(
        encapsulationKey: [UInt8], randomness: [UInt8]
    ) throws(CryptoError) -> (sharedSecret: [UInt8], ciphertext: [UInt8]) {
        try MLKEMPublicKey(checking: encapsulationKey).encapsulate(randomness: randomness)
    }

    public static func encapsulate(encapsulationKey: [UInt8]) throws(CryptoError) -> (sharedSecret: [UInt8], ciphertext: [UInt8]) {
        try encapsulate(encapsulationKey: encapsulationKey, randomness: SecureRandom.bytes(seedSize))
    }

    /// ML-KEM.Decaps_internal(dk, c) (Algorithm 18) after the checks of §7.3. A ciphertext of the
    /// right size never fails: a tampered one yields the implicit-rejection secret J(z‖c).
    public static func decapsulate(decapsulationKey: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try MLKEMPrivateKey(checking: decapsulationKey).decapsulate(ciphertext)
    }

    /// FIPS 203 §7.2 encapsulation-key check: the size, and every coefficient below q
    /// (ByteEncode_12(ByteDecode_12(ek)) = ek).
    public static func isValidEncapsulationKey(_ key: [UInt8]) -> Bool {
        guard key.count == encapsulationKeySize else { return false }
        // The key is public: the check needs no constant time, and no matrix sampling.
        return key.withUnsafeBufferPointer { buffer in
            (0..<k).allSatisfy { i in
                !MLKEMPoly.decode12(buffer, at: i * polyBytes).c.contains(where: { $0 >= MLKEMPoly.q })
            }
        }
    }

    /// FIPS 203 §7.3 decapsulation-key check: the size, and H(ek) stored in dk matches its ek.
    public static func isValidDecapsulationKey(_ key: [UInt8]) -> Bool {
        (try? MLKEMPrivateKey(checking: key)) != nil
    }
}

/// An encapsulation key decoded for use: t̂ and ρ, the matrix Â sampled from ρ, and H(ek).
struct MLKEMPublicKey: Sendable {
    let bytes: [UInt8]
    let tHat: [MLKEMPoly]
    let rho: [UInt8]
    /// Â[i][j] = SampleNTT(ρ‖j‖i) (FIPS 203 Algorithm 13, lines 3–7).
    let matrix: [[MLKEMPoly]]
    let hash: [UInt8]

    init(bytes: [UInt8], hash: [UInt8], tHat: [MLKEMPoly], rho: [UInt8], matrix: [[MLKEMPoly]]) {
        self.bytes = bytes
        self.hash = hash
        self.tHat = tHat
        self.rho = rho
        self.matrix = matrix
    }

    init(tHat: [MLKEMPoly], rho: [UInt8], matrix: [[MLKEMPoly]]) {
        var bytes = [UInt8](repeating: 0, count: MLKEM768.encapsulationKeySize)
        for i in 0..<MLKEM768.k { tHat[i].encode12(into: &bytes, at: i * MLKEM768.polyBytes) }
        bytes.replaceSubrange((MLKEM768.k * MLKEM768.polyBytes)..., with: rho)
        self.bytes = bytes
        self.tHat = tHat
        self.rho = rho
        self.matrix = matrix
        hash = SHA3.sha256(bytes)
    }

    /// Decodes `ek` after the §7.2 check (size and modulus); throws `invalidKey` otherwise.
    init(checking ek: [UInt8]) throws(CryptoError) {
        guard ek.count == MLKEM768.encapsulationKeySize else { throw .invalidKey }
        let tHat = ek.withUnsafeBufferPointer { buffer in
            (0..<MLKEM768.k).map { MLKEMPoly.decode12(buffer, at: $0 * MLKEM768.polyBytes) }
        }
        // ek is public: a branch on it leaks nothing.
        for poly in tHat where poly.c.contains(where: { $0 >= MLKEMPoly.q }) { throw .invalidKey }
        let rho = Array(ek[(MLKEM768.k * MLKEM768.polyBytes)...])
        bytes = ek
        self.tHat = tHat
        self.rho = rho
        matrix = Self.sampleMatrix(rho)
        hash = SHA3.sha256(ek)
    }

    static func sampleMatrix(_ rho: [UInt8]) -> [[MLKEMPoly]] {
        (0..<MLKEM768.k).map { i in
            (0..<MLKEM768.k).map { j in MLKEMPoly.sampleNTT(seed: rho, j: UInt8(j), i: UInt8(i)) }
        }
    }

    /// K-PKE.Encrypt(ek, m, r) (Algorithm 14).
    func encrypt(message: [UInt8], randomness r: [UInt8]) -> [UInt8] {
        let k = MLKEM768.k
        var nonce: UInt8 = 0
        var rHat = (0..<k).map { _ in
            defer { nonce += 1 }
            return MLKEMPoly.sampleCBD2(seed: r, nonce: nonce)
        }
        let e1 = (0..<k).map { _ in
            defer { nonce += 1 }
            return MLKEMPoly.sampleCBD2(seed: r, nonce: nonce)
        }
        let e2 = MLKEMPoly.sampleCBD2(seed: r, nonce: nonce)
        for i in 0..<k { rHat[i].ntt() }

        var ciphertext = [UInt8](repeating: 0, count: MLKEM768.ciphertextSize)
        for i in 0..<k {
            // u = NTT^-1(Âᵀ ∘ r̂) + e1
            var u = MLKEMPoly.baseMultiplyAccumulate((0..<k).map { matrix[$0][i] }, rHat)
            u.inverseNTTToMontgomery()
            u.add(e1[i])
            u.reduce()
            u.compress10(into: &ciphertext, at: 320 * i)
        }
        // v = NTT^-1(t̂ᵀ ∘ r̂) + e2 + Decompress_1(m)
        var v = MLKEMPoly.baseMultiplyAccumulate(tHat, rHat)
        v.inverseNTTToMontgomery()
        v.add(e2)
        v.add(MLKEMPoly.fromMessage(message))
        v.reduce()
        v.compress4(into: &ciphertext, at: 320 * k)
        return ciphertext
    }

    /// Encaps_internal (Algorithm 17): (K, r) = G(m‖H(ek)), c = K-PKE.Encrypt(ek, m, r).
    func encapsulate(randomness m: [UInt8]) throws(CryptoError) -> (sharedSecret: [UInt8], ciphertext: [UInt8]) {
        guard m.count == MLKEM768.seedSize else { throw .invalidParameter("ML-KEM encapsulation randomness must be 32 bytes") }
        let kr = SHA3.sha512(m, hash)
        let ciphertext = encrypt(message: m, randomness: Array(kr[32..<64]))
        return (Array(kr[0..<32]), ciphertext)
    }
}

/// A decapsulation key decoded for use: ŝ, the public key, and the rejection seed z.
struct MLKEMPrivateKey: Sendable {
    let sHat: [MLKEMPoly]
    let publicKey: MLKEMPublicKey
    let z: [UInt8]

    /// KeyGen_internal(d, z) (Algorithm 16) over K-PKE.KeyGen(d) (Algorithm 13).
    init(d: [UInt8], z: [UInt8]) throws(CryptoError) {
        guard d.count == 32, z.count == 32 else { throw .invalidParameter("ML-KEM key generation seeds must be 32 bytes") }
        let k = MLKEM768.k
        let rhoSigma = SHA3.sha512(d, [UInt8(k)])
        let rho = Array(rhoSigma[0..<32]), sigma = Array(rhoSigma[32..<64])
        let matrix = MLKEMPublicKey.sampleMatrix(rho)
        var sHat = (0..<k).map { MLKEMPoly.sampleCBD2(seed: sigma, nonce: UInt8($0)) }
        var eHat = (0..<k).map { MLKEMPoly.sampleCBD2(seed: sigma, nonce: UInt8(k + $0)) }
        for i in 0..<k {
            sHat[i].ntt()
            eHat[i].ntt()
        }
        // t̂ = Â ∘ ŝ + ê
        let tHat = (0..<k).map { i in
            var t = MLKEMPoly.baseMultiplyAccumulate(matrix[i], sHat)
            t.toMontgomery()
            t.add(eHat[i])
            t.reduce()
            return t
        }
        self.sHat = sHat
        publicKey = MLKEMPublicKey(tHat: tHat, rho: rho, matrix: matrix)
        self.z = z
    }

    /// Decodes `dk` = dk_PKE ‖ ek ‖ H(ek) ‖ z after the §7.3 check (size, and H(ek) matches).
    init(checking dk: [UInt8]) throws(CryptoError) {
        guard dk.count == MLKEM768.decapsulationKeySize else { throw .invalidKey }
        let k = MLKEM768.k, polyBytes = MLKEM768.polyBytes
        let ek = Array(dk[(k * polyBytes)..<(2 * k * polyBytes + 32)])
        let storedHash = Array(dk[(2 * k * polyBytes + 32)..<(2 * k * polyBytes + 64)])
        guard SHA3.sha256(ek) == storedHash else { throw .invalidKey }
        // The decapsulation-key check (§7.3) does not include §7.2's modulus check of ek; decode it
        // mod q like ByteDecode_12 does, without refusing.
        let tHat = ek.withUnsafeBufferPointer { buffer in
            (0..<k).map {
                var poly = MLKEMPoly.decode12(buffer, at: $0 * polyBytes)
                poly.subtractQIfNeeded()
                return poly
            }
        }
        let rho = Array(ek[(k * polyBytes)...])
        sHat = dk.withUnsafeBufferPointer { buffer in
            (0..<k).map {
                var poly = MLKEMPoly.decode12(buffer, at: $0 * polyBytes)
                poly.subtractQIfNeeded()
                return poly
            }
        }
        // Keep the key's own bytes and hash: re-encryption must use exactly the stored ek and H(ek).
        publicKey = MLKEMPublicKey(bytes: ek, hash: storedHash, tHat: tHat, rho: rho, matrix: MLKEMPublicKey.sampleMatrix(rho))
        z = Array(dk[(2 * k * polyBytes + 64)...])
    }

    /// dk = ByteEncode_12(ŝ) ‖ ek ‖ H(ek) ‖ z.
    func encoded() -> [UInt8] {
        var dk = [UInt8](repeating: 0, count: MLKEM768.k * MLKEM768.polyBytes)
        for i in 0..<MLKEM768.k { sHat[i].encode12(into: &dk, at: i * MLKEM768.polyBytes) }
        return dk + publicKey.bytes + publicKey.hash + z
    }

    /// K-PKE.Decrypt(dk_PKE, c) (Algorithm 15).
    func decrypt(_ ciphertext: [UInt8]) -> [UInt8] {
        let k = MLKEM768.k
        var uHat = ciphertext.withUnsafeBufferPointer { buffer in
            (0..<k).map { MLKEMPoly.decompress10(buffer, at: 320 * $0) }
        }
        var v = ciphertext.withUnsafeBufferPointer { MLKEMPoly.decompress4($0, at: 320 * k) }
        for i in 0..<k { uHat[i].ntt() }
        // w = v − NTT^-1(ŝᵀ ∘ NTT(u))
        var w = MLKEMPoly.baseMultiplyAccumulate(sHat, uHat)
        w.inverseNTTToMontgomery()
        w.subtract(from: v)
        w.reduce()
        v = w
        return v.toMessage()
    }

    /// Decaps_internal (Algorithm 18) after the ciphertext check of §7.3 (its size). The re-encryption
    /// comparison and the choice between K' and K̄ = J(z‖c) are constant-time.
    func decapsulate(_ ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count == MLKEM768.ciphertextSize else { throw .invalidParameter("ML-KEM ciphertext must be 1088 bytes") }
        let message = decrypt(ciphertext)
        let kr = SHA3.sha512(message, publicKey.hash)
        let rejection = SHAKE256.hash(z, ciphertext, count: 32)
        let reencrypted = publicKey.encrypt(message: message, randomness: Array(kr[32..<64]))
        var difference: UInt8 = 0
        for i in 0..<MLKEM768.ciphertextSize { difference |= ciphertext[i] ^ reencrypted[i] }
        // 0xFF when the ciphertexts are equal, 0x00 otherwise, without a branch.
        let keep = UInt8(truncatingIfNeeded: (UInt32(difference) &- 1) >> 8)
        return (0..<32).map { (kr[$0] & keep) | (rejection[$0] & ~keep) }
    }
}
