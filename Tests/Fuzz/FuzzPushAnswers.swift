// libFuzzer entry point for what push services answer (Sources/Push), compiled into the Push module
// (see `make fuzz`): a Web Push endpoint is any host a client chose, so its status, Retry-After and
// body are hostile input, as are APNs' and FCM's bodies. The first two bytes are the status, the
// rest the Retry-After text and the body. Every answer maps to one outcome whose reason is a short
// identifier and whose delay is within a day.
import Basics

private func check(_ outcome: PushOutcome) {
    precondition(!outcome.reason.isEmpty && outcome.reason.utf8.count <= 64)
    precondition(outcome.reason.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x5f })
    if case .retry(_, let delay?) = outcome { precondition(delay >= 0 && delay <= 86_400) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard bytes.count >= 2 else { return 0 }
    let status = Int(bytes[0]) << 8 | Int(bytes[1])
    let rest = Array(bytes.dropFirst(2))
    let text = String(decoding: rest.prefix(64), as: UTF8.self)
    let now = 1_800_000_000.0
    check(WebPushSender.outcome(status: status, retryAfter: text, now: now))
    check(APNsSender.outcome(status: status, body: rest, retryAfter: text, now: now))
    check(FCMSender.outcome(status: status, body: rest, retryAfter: text, now: now))
    if let delay = PushOutcome.retryAfter(text, now: now) { precondition(delay >= 0 && delay <= 86_400) }
    if let date = HTTPDateParser.parse(text) { precondition(date >= 0) }
    return 0
}
