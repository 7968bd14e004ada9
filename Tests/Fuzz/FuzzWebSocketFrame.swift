// libFuzzer entry point for the WebSocket frame parser and message assembler (RFC 6455 §5).
// Build and run: scripts/fuzz.sh websocket. Parses the input as a stream of client frames, whole
// and fed in small reads, and checks that both ways agree and every result stays bounded.
import HTTP

private func run(_ bytes: [UInt8], feedSize: Int) -> [WebSocketEvent]? {
    let parser = WebSocketFrameParser(maxPayloadSize: 4096)
    var assembler = WebSocketMessageAssembler(maxMessageSize: 4096)
    var buffer: [UInt8] = []
    var events: [WebSocketEvent] = []
    var fed = 0
    while fed < bytes.count {
        let next = Swift.min(bytes.count, fed + feedSize)
        buffer.append(contentsOf: bytes[fed..<next])
        fed = next
        while true {
            do {
                let (consumed, frame) = try parser.parse(buffer)
                precondition(consumed <= buffer.count)
                guard let frame else { break }
                precondition(frame.payload.count <= 4096)
                precondition(!frame.opcode.isControl || (frame.fin && frame.payload.count <= 125))
                buffer.removeFirst(consumed)
                if let event = try assembler.receive(frame) { events.append(event) }
            } catch {
                precondition([1002, 1007, 1009].contains(error.closeCode.rawValue))
                return nil
            }
        }
    }
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let whole = run(bytes, feedSize: Swift.max(1, bytes.count))
    let pieces = run(bytes, feedSize: bytes.first.map { Int($0 % 7) + 1 } ?? 1)
    precondition(whole == pieces)
    return 0
}
