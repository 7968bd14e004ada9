// libFuzzer entry point for the chat contract's parsers (ChatProtocol, instrumented): the strict
// DAG-CBOR decoder, the signed-request parser (strict JSON projected against a method's lexicon)
// and the CBOR projection of event envelopes. The first byte picks the parser (and, for requests,
// the method). Each either refuses the input or yields a value that survives a round trip: canonical
// DAG-CBOR re-encodes to the same bytes, a parsed request renders to JSON that parses to the same
// transcript, and its canonical body reads back as the same body.
import ChatProtocol

/// Every method whose input is a signed request (every procedure with a JSON input).
private let methods = ChatSchema.contract.methods.values.filter { $0.type == "procedure" && $0.input != nil }.map(\.nsid).sorted()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let mode = data[0] % 3
    let selector = Int(data[1])
    let bytes = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    switch mode {
    case 0:
        guard let value = try? DAGCBOR.decode(bytes) else { return 0 }
        precondition(DAGCBOR.encode(value) == bytes, "an accepted item is not canonical")
    case 1:
        let nsid = methods[selector % methods.count]
        guard let request = try? SignedRequest.parse(input: bytes, method: nsid) else { return 0 }
        let rendered = ChatJSON.render(request.input(for: nsid))
        let again = try! SignedRequest.parse(input: rendered, method: nsid)
        precondition(again.requestDigest == request.requestDigest, "rendering changed the transcript")
        let body = try! ChatProjection().project(cbor: try! DAGCBOR.decode(request.canonicalBody), taggedDef: request.kind.rawValue,
                                                 form: .signing)
        precondition(body == request.body, "the canonical body reads back as another body")
    default:
        guard let items = try? DAGCBOR.decodeSequence(bytes, maxItems: 2), items.count == 2,
              let envelope = try? ChatProjection().project(cbor: items[1], as: .ref("eventEnvelope"), form: .data) else { return 0 }
        precondition(envelope.dagCBOR(.data) == items[1], "an envelope reads back as another map")
    }
    return 0
}
