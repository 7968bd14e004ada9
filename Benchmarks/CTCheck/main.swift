import Primitives

// `ct-check OPERATION`: runs one secret-handling operation with its secret inputs read from memory
// that was allocated and never written. Valgrind's Memcheck treats such bytes as undefined and
// follows them through every computation, so it reports any conditional branch, conditional move
// or memory address that depends on a secret (the ctgrind technique, needing no client requests).
// Public inputs are ordinary, defined bytes. Run by scripts/ct-check.sh; see docs/xwing.md.

/// `count` bytes Memcheck considers undefined.
func secretBytes(_ count: Int) -> [UInt8] {
    let raw = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
    defer { raw.deallocate() }
    return Array(UnsafeBufferPointer(start: raw, count: count))
}

/// Keeps a result alive without branching on it (printing or comparing it would be a use).
@inline(never)
func consume(_ bytes: [UInt8]) { withExtendedLifetime(bytes) {} }

let operation = CommandLine.arguments.dropFirst().first ?? ""
let publicSeed = [UInt8](repeating: 7, count: 64)
let (ek, dk) = try MLKEM768.keyGen(d: Array(publicSeed[0..<32]), z: Array(publicSeed[32..<64]))
let (_, ct) = try MLKEM768.encapsulate(encapsulationKey: ek, randomness: Array(publicSeed[0..<32]))
let xwingPublic = try XWing.publicKey(privateKey: Array(publicSeed[0..<32]))
let (_, xwingCT) = try XWing.encapsulate(publicKey: xwingPublic, seed: publicSeed)

switch operation {
case "shake":
    consume(SHAKE256.hash(secretBytes(40), count: 200))
    consume(SHA3.sha512(secretBytes(200)))
case "mlkem-keygen":
    let (secretEK, secretDK) = try MLKEM768.keyGen(d: secretBytes(32), z: secretBytes(32))
    consume(secretEK + secretDK)
case "mlkem-encaps":
    // m is secret, ek public.
    let (ss, c) = try MLKEM768.encapsulate(encapsulationKey: ek, randomness: secretBytes(32))
    consume(ss + c)
case "mlkem-decaps", "mlkem-decaps-rejected":
    // ŝ and z secret; ek, H(ek) and the ciphertext public (so the §7.3 hash check is on public data).
    let secretDK = secretBytes(1152) + Array(dk[1152..<2368]) + secretBytes(32)
    var c = ct
    if operation == "mlkem-decaps-rejected" { c[5] ^= 1 }
    consume(try MLKEM768.decapsulate(decapsulationKey: secretDK, ciphertext: c))
case "xwing-encaps":
    let (ss, c) = try XWing.encapsulate(publicKey: xwingPublic, seed: secretBytes(64))
    consume(ss + c)
case "xwing-decaps":
    consume(try XWing.decapsulate(privateKey: secretBytes(32), ciphertext: xwingCT))
default:
    print("usage: ct-check shake|mlkem-keygen|mlkem-encaps|mlkem-decaps|mlkem-decaps-rejected|xwing-encaps|xwing-decaps")
}
