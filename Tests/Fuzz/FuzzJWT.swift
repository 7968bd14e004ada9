import ATProto
import Basics

/// libFuzzer entry point: arbitrary bytes through the token parsers, pure functions only (no
/// network, no clock). Crashes, hangs and unbounded allocation are the findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? ServiceAuthJWT.parse(text)
    _ = try? DID(text)
    _ = Base64URL.decode(text)
    _ = try? Multikey.decode(text)
    return 0
}
