// libFuzzer entry point for XRPC request decoding. Compiled together with Sources/DeliveryService
// as one module (see `make fuzz`), so it decodes the methods' real input types. The first byte picks
// the type, the rest is the body. Decoding either throws 400 InvalidRequest or yields a value whose
// JSON encoding decodes again to the same encoding. The types that read and write themselves
// directly (JSONObjectCodable) must agree with their Codable path: the same value or the same
// error, the same bytes out. The body is also fed to X-Forwarded-For handling, the other request
// text the service parses by hand.
import Basics
import Foundation
import JSON
import Lexicon

private func roundTrip<T: Codable>(_ type: T.Type, _ body: [UInt8]) {
    do {
        let value = try XRPCJSON.decode(T.self, from: body)
        let encoded = try! XRPCJSON.encode(value)
        let again = try! XRPCJSON.encode(try! XRPCJSON.decode(T.self, from: encoded))
        // Compared as parsed JSON: a dictionary-valued field may encode its keys in any order.
        let first = try! JSONSerialization.jsonObject(with: Data(encoded)) as! NSObject
        let second = try! JSONSerialization.jsonObject(with: Data(again)) as! NSObject
        precondition(first.isEqual(second), "re-encoding changed the value")
    } catch {
        precondition(error.status == 400 && error.name == .invalidRequest)
    }
}

private func directAgrees<T: JSONObjectCodable & Equatable>(_ type: T.Type, _ body: [UInt8]) {
    let direct = Result { try StrictJSON.decode(T.self, from: body) }
    let codable = Result { try StrictJSON.decode(T.self, from: body, objects: .codable) }
    switch (direct, codable) {
    case let (.success(first), .success(second)):
        precondition(first == second, "the direct and Codable paths decoded different values")
        precondition(try! StrictJSON.encode(first) == StrictJSON.encode(first, objects: .codable), "the paths wrote different bytes")
    case let (.failure(first), .failure(second)):
        precondition("\(first)" == "\(second)", "the paths failed differently")
    default:
        preconditionFailure("one path decoded what the other refused")
    }
}

private let decoders: [([UInt8]) -> Void] = [
    { roundTrip(SendMessage.Input.self, $0) },
    { roundTrip(CreateConvo.Input.self, $0) },
    { roundTrip(AddMembers.Input.self, $0) },
    { roundTrip(CommitGroupChange.Input.self, $0) },
    { roundTrip(RemoveMember.Input.self, $0) },
    { roundTrip(ProcessExternalCommit.Input.self, $0) },
    { roundTrip(LeaveConvo.Input.self, $0) },
    { roundTrip(UpdateGroupInfo.Input.self, $0) },
    { roundTrip(PublishKeyPackage.Input.self, $0) },
    { roundTrip(PublishKeyPackages.Input.self, $0) },
    { roundTrip(ConfirmWelcome.Input.self, $0) },
    // After the others, so that the seeds' first bytes keep choosing the types they were written for.
    { directAgrees(SendMessageInput.self, $0) },
    { directAgrees(SendMessageOutput.self, $0) },
    { directAgrees(GetMessagesOutput.self, $0) },
    { directAgrees(GetConvosOutput.self, $0) },
    { registration($0) },
]

/// registerDeviceToken's input and the checks that need no network: a device id and subscription
/// keys are accepted only in their exact forms.
private func registration(_ body: [UInt8]) {
    roundTrip(RegisterDeviceToken.Input.self, body)
    guard let input = try? XRPCJSON.decode(RegisterDeviceToken.Input.self, from: body) else { return }
    if let id = try? PushRegistrationRules.deviceID(input.deviceId) { precondition((1...128).contains(id.utf8.count)) }
    if let subscription = input.webPush, let keys = try? PushRegistrationRules.keys(subscription) {
        precondition(keys.p256dh.count == 65 && keys.auth.count == 16)
    }
}

private let proxies = try! TrustedProxies(parsing: "10.0.0.0/8, fd00::/8")
private let rateLimits = RateLimits(configuration: RateLimitConfiguration())

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    decoders[Int(selector) % decoders.count](body)

    let header = String(decoding: body, as: UTF8.self)
    let client = proxies.clientAddress(peer: "10.1.2.3", forwardedFor: [header])
    precondition(client == "10.1.2.3" || IPAddress(client) != nil)
    // The per-IP bucket: an IPv6 client's is its /64, which holds the client; an IPv4 client's its
    // own dotted quad; text that is no address, itself.
    let bucket = rateLimits.ipBucket(header)
    if let address = IPAddress(header) {
        precondition(address.isIPv4 ? bucket == address.description : IPNetwork(Substring(bucket))?.contains(address) == true)
    } else {
        precondition(bucket == header)
    }
    if let network = IPNetwork(Substring(header)) { precondition(network.contains(network.address)) }
    return 0
}
