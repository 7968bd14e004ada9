import Basics
import ChatProtocol
import DeliveryStore
import JSON

/// `blue.catbird.chat.updatePushToken`, as the app's own service shapes it (lexicon/chat/
/// updatePushToken.json): not signed; `{token}` sets the APNs device token of one of the caller's
/// devices, an empty body, `{}` or a null token clears it. The device is the one the
/// `x-catbird-chat-device-id` header names (`x-catbird-device-id` too), else the account's most
/// recently updated active device. The token goes to the push feature's registrations as the
/// device (DID, device UUID) with platform `ios` (docs/push.md), so that the device is woken for
/// chat messages while it holds no event stream (docs/chat.md, "Push"). Answers the `#deviceView`.
enum UpdatePushToken {
    static let deviceHeaders = ["x-catbird-chat-device-id", "x-catbird-device-id"]

    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "updatePushToken", .procedure, maxBodySize: 4 << 10) { context in
            let token = try token(context.request.body, env: env)
            let address: PushAddress?
            do { address = try token.map { try PushRegistrationRules.apns($0, environment: .production) } } catch {
                throw ChatRefusal(.invalidRequest, "token must be an APNs device token in hex (8-200 bytes)")
            }
            var device: ChatUUID?
            if let header = deviceHeaders.lazy.compactMap({ context.request.headers[$0] }).first {
                guard let id = ChatUUID(header) else { throw ChatRefusal(.invalidRequest, "the device header is not a device id") }
                device = id
            }
            let updated = try env.store.setChatPushAddress(did: context.caller, device: device, address: address,
                                                           maxDevices: env.maxPushDevices)
            return env.output(.object(["device": ChatViews.device(updated)]))
        }
    }

    /// The token of the input: nil to clear (no body, `{}`, or `token: null`); otherwise read
    /// against the lexicon, strictly.
    static func token(_ body: [UInt8], env: ChatEnvironment) throws -> String? {
        guard !body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        let document: JSONDocument
        do { document = try JSONDocument(parsing: body) } catch { throw ChatRefusal(.invalidRequest, "the body is not JSON") }
        if document.members(document.root).count == 1, let token = document.member("token", of: document.root),
           document.kind(token) == .null { return nil }
        guard let schema = ChatSchema.contract.method(ChatMethods.prefix + "updatePushToken")?.input else { throw XRPCError.internalError }
        do {
            return try env.projection.project(document, document.root, as: schema)["token"]?.text
        } catch {
            throw ChatRefusal(.invalidRequest, error.description)
        }
    }
}
