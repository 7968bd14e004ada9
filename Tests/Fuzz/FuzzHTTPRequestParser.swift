// libFuzzer entry point for the HTTP/1.1 request parser, linked against the instrumented HTTP
// module (scripts/fuzz.sh http); feeds the input whole and in small reads, and checks that the
// parser either throws a mapped error or yields bounded, well-formed requests.
import HTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let feedSize = bytes.first.map { Int($0 % 16) + 1 } ?? 1
    for size in [Int.max, feedSize] {
        do {
            let result = try HTTPRequestParser.parseMessages(bytes, feedSize: size, maxHeaderBytes: 1024, maxBodySize: 4096)
            precondition(result.unconsumed <= bytes.count)
            for request in result.requests {
                precondition(request.body.count <= 4096)
                precondition(request.head.target.hasPrefix(request.head.path))
                precondition(request.head.version == .http1_1 || request.head.version == .http1_0)
            }
        } catch {
            precondition([400, 413, 417, 431, 501, 505].contains(error.status))
        }
    }
    return 0
}
