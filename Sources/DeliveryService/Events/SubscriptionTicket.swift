import ATProto
import Basics
import Foundation
import Primitives

/// What a subscription ticket grants: one WebSocket for `did`, on all its conversations or on
/// `convoID` only, if presented before `expiresAt` and never before.
struct SubscriptionTicket: Sendable, Equatable {
    /// 128 random bits, hex; the single-use record's key.
    var id: String
    var did: String
    var convoID: String?
    /// Milliseconds since 1970.
    var expiresAtMillis: Int64
    /// The device the socket is the live subscription of (`did#deviceID`, docs/push.md), if named.
    var deviceID: String? = nil

    var expiresAt: Date { Date(timeIntervalSince1970: Double(expiresAtMillis) / 1000) }
}

/// Why a presented ticket is refused.
enum SubscriptionTicketError: Error, Equatable {
    /// Not a ticket this service could have issued (wrong shape or a MAC that does not verify).
    case invalid
    case expired
}

/// Issues and verifies tickets: `base64url(payload) "." base64url(HMAC-SHA256(key, payload))`, where
/// payload is the UTF-8 text `v1\n<id>\n<did>\n<convoId or empty>\n<expires, ms since 1970>`, and
/// `\n<deviceId>` after it when the ticket names a device.
/// Stateless: any node holding the key verifies any node's tickets; single use is kept apart.
struct SubscriptionTicketSigner: Sendable {
    static let version = "v1"
    /// Longest ticket accepted for verification; real ones are well under 400 characters.
    static let maxLength = 1024

    let key: [UInt8]
    let lifetime: TimeInterval

    init(key: [UInt8], lifetime: TimeInterval) {
        precondition(key.count >= 32, "ticket key too short")
        self.key = key
        self.lifetime = lifetime
    }

    func issue(did: String, convoID: String?, deviceID: String? = nil, now: Date) -> (text: String, ticket: SubscriptionTicket) {
        let id = Hex.encode(SecureRandom.bytes(16))
        let expires = Int64((now.timeIntervalSince1970 + lifetime) * 1000)
        let ticket = SubscriptionTicket(id: id, did: did, convoID: convoID, expiresAtMillis: expires, deviceID: deviceID)
        return (encode(ticket), ticket)
    }

    func encode(_ ticket: SubscriptionTicket) -> String {
        var fields = [Self.version, ticket.id, ticket.did, ticket.convoID ?? "", String(ticket.expiresAtMillis)]
        if let device = ticket.deviceID { fields.append(device) }
        let payload = Array(fields.joined(separator: "\n").utf8)
        // HMAC-SHA256 with a valid key does not fail; a failure would be an OpenSSL fault.
        let mac = (try? HMAC.authenticationCode(for: payload, key: key, hash: .sha256)) ?? []
        return Base64URL.encode(payload) + "." + Base64URL.encode(mac)
    }

    /// The ticket, if the MAC verifies and it has not expired at `now`.
    func verify(_ text: String, now: Date) throws(SubscriptionTicketError) -> SubscriptionTicket {
        guard text.utf8.count <= Self.maxLength else { throw .invalid }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]), let mac = Base64URL.decode(parts[1]),
              mac.count == HashAlgorithm.sha256.outputSize,
              HMAC.isValid(mac, for: payload, key: key, hash: .sha256) else { throw .invalid }
        // Only this service writes payloads, but parse them strictly all the same.
        guard let string = String(validating: payload, as: UTF8.self) else { throw .invalid }
        let fields = string.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5 || (fields.count == 6 && !fields[5].isEmpty), fields[0] == Self.version,
              fields[1].utf8.count == 32, !fields[2].isEmpty, let expires = Int64(fields[4]) else { throw .invalid }
        let ticket = SubscriptionTicket(id: fields[1], did: fields[2], convoID: fields[3].isEmpty ? nil : fields[3],
                                        expiresAtMillis: expires, deviceID: fields.count == 6 ? fields[5] : nil)
        guard Double(expires) / 1000 > now.timeIntervalSince1970 else { throw .expired }
        return ticket
    }
}
