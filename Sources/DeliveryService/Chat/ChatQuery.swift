import ChatProtocol
import DeliveryStore
import JSON

/// A device-scoped query of the chat contract (CHAT.md §6 item 8): every one names the calling
/// device in `actorDeviceId`, which must be a registered (`DeviceNotRegistered`, 401) and active
/// (`DeviceRevoked`, 401) device of the authenticated account.
struct ChatQuery {
    let env: ChatEnvironment
    let caller: String
    let device: ChatDevice
    let parameters: XRPCParameters

    init(env: ChatEnvironment, caller: String, device: ChatDevice, parameters: XRPCParameters) {
        self.env = env
        self.caller = caller
        self.device = device
        self.parameters = parameters
    }

    init(_ context: AuthenticatedContext, env: ChatEnvironment) throws {
        self.env = env
        caller = context.caller.rawValue
        parameters = context.parameters
        try Self.check(parameters, of: context.nsid, env: env)
        let deviceID = try Self.uuid(parameters, "actorDeviceId")
        guard let device = try env.store.chat({ try $0.device(did: context.caller.rawValue, id: deviceID) }) else {
            throw ChatRefusal(.deviceNotRegistered, "no device \(deviceID) is registered for this account")
        }
        guard device.isActive else { throw ChatRefusal(.deviceRevoked, "the device was revoked") }
        self.device = device
    }

    /// The parameters as the method's lexicon declares them: no unknown or repeated name (but an
    /// array's), every required one, integers in their bounds, strings in their lengths.
    static func check(_ parameters: XRPCParameters, of nsid: String, env: ChatEnvironment) throws {
        guard let schema = env.projection.schema.method(nsid)?.parameters else { return }
        var json: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in parameters.names.enumerated() {
            guard let type = schema.properties[name] else { throw ChatRefusal(.invalidRequest, "unknown parameter \(name)") }
            let values = parameters.all(name)
            if index > 0 { json.append(UInt8(ascii: ",")) }
            JSONString.append(name, to: &json)
            json.append(UInt8(ascii: ":"))
            func scalar(_ value: String, _ type: ChatSchema.FieldType) throws {
                if case .integer = type {
                    guard let number = UInt64(value), String(number) == value else {
                        throw ChatRefusal(.invalidRequest, "\(name) must be a non-negative integer")
                    }
                    json += Array(value.utf8)
                } else {
                    JSONString.append(value, to: &json)
                }
            }
            if case .array(let items, _, _) = type {
                json.append(UInt8(ascii: "["))
                for (i, value) in values.enumerated() {
                    if i > 0 { json.append(UInt8(ascii: ",")) }
                    try scalar(value, items)
                }
                json.append(UInt8(ascii: "]"))
            } else {
                guard values.count == 1 else { throw ChatRefusal(.invalidRequest, "\(name) is given more than once") }
                try scalar(values[0], type)
            }
        }
        json.append(UInt8(ascii: "}"))
        do { _ = try env.projection.project(json: json, as: .object(schema)) } catch {
            throw ChatRefusal(.invalidRequest, error.description)
        }
    }

    static func uuid(_ parameters: XRPCParameters, _ name: String) throws -> ChatUUID {
        guard let text = parameters.string(name) else { throw ChatRefusal(.invalidRequest, "\(name) is required") }
        guard let uuid = ChatUUID(text) else { throw ChatRefusal(.invalidRequest, "\(name) must be a lowercase UUIDv4") }
        return uuid
    }

    func uuid(_ name: String) throws -> ChatUUID { try Self.uuid(parameters, name) }

    /// `limit`, 1–100 (default 50).
    func limit(default value: Int = 50) throws -> Int {
        guard let text = parameters.string("limit") else { return value }
        guard let limit = Int(text), (1...100).contains(limit), String(limit) == text else {
            throw ChatRefusal(.invalidRequest, "limit must be an integer from 1 to 100")
        }
        return limit
    }

    /// An opaque string parameter of 1–`maxLength` characters, if given.
    func string(_ name: String, maxLength: Int = 512, minLength: Int = 1) throws -> String? {
        guard let text = parameters.string(name) else { return nil }
        guard (minLength...maxLength).contains(text.utf8.count) else {
            throw ChatRefusal(.invalidRequest, "\(name) must be \(minLength)-\(maxLength) characters")
        }
        return text
    }
}
