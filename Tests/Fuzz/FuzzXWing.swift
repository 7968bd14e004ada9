// libFuzzer target for ML-KEM-768 and X-Wing input handling; built by scripts/fuzz.sh, not by SwiftPM.
// Any bytes as an encapsulation key, ciphertext or private key: a refusal or a result, never a crash;
// an accepted ML-KEM key re-encodes to itself (FIPS 203 §7.2), and a wrong ciphertext of the right
// size decapsulates to J(z‖c) (implicit rejection).
import Primitives

nonisolated(unsafe) let fixed = try! MLKEM768.keyGen(d: [UInt8](repeating: 1, count: 32), z: [UInt8](repeating: 2, count: 32))
nonisolated(unsafe) let xwingKey = [UInt8](repeating: 3, count: 32)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    switch selector % 4 {
    case 0:
        // As an ML-KEM encapsulation key, padded or cut to size half of the time.
        let key = selector & 0x80 == 0 ? input : Array((input + [UInt8](repeating: 0, count: 1184)).prefix(1184))
        if let (ss, ct) = try? MLKEM768.encapsulate(encapsulationKey: key, randomness: [UInt8](repeating: 9, count: 32)) {
            precondition(key.count == 1184 && ss.count == 32 && ct.count == 1088)
        }
    case 1:
        let ciphertext = selector & 0x80 == 0 ? input : Array((input + [UInt8](repeating: 0, count: 1088)).prefix(1088))
        if let ss = try? MLKEM768.decapsulate(decapsulationKey: fixed.decapsulationKey, ciphertext: ciphertext) {
            precondition(ciphertext.count == 1088 && ss.count == 32)
            // A fuzzed ciphertext is never a real encapsulation (that needs m): it must be rejected.
            precondition(ss == SHAKE256.hash(Array(fixed.decapsulationKey.suffix(32)), ciphertext, count: 32))
        }
    case 2:
        let ciphertext = selector & 0x80 == 0 ? input : Array((input + [UInt8](repeating: 0, count: 1120)).prefix(1120))
        if let ss = try? XWing.decapsulate(privateKey: xwingKey, ciphertext: ciphertext) {
            precondition(ciphertext.count == 1120 && ss.count == 32)
        }
    default:
        _ = try? XWing.publicKey(privateKey: input)
        _ = MLKEM768.isValidDecapsulationKey(input)
    }
    return 0
}
