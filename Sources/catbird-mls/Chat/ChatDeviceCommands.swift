import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat enroll` (CHAT.md §4: enrollDevice).
struct ChatEnroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll", abstract: "Create this device's key (if there is none) and enroll it with KeyPackages.")

    @OptionGroup var options: ChatOptions

    @Option(help: "KeyPackages to upload.")
    var packages: Int = 5

    @Option(help: "The device's name, as the account's other devices see it.")
    var name: String = "catbird-mls"

    func validate() throws {
        guard (1...100).contains(packages) else { throw ValidationError("--packages must be 1...100") }
        guard (1...128).contains(name.count) else { throw ValidationError("--name is 1 to 128 characters") }
    }

    func run() throws {
        let view = try options.withClient(create: true) { client in
            guard client.authGeneration == 0 else {
                throw MLSClientError.invalidArgument("device \(options.device) is already enrolled (\(client.device.deviceID))")
            }
            return try client.enroll(name: name, packages: packages)
        }
        if options.global.json { Output.line(ChatOptions.json(view)) } else {
            let id = view["deviceId"]?.uuid?.description ?? "?"
            Output.line("enrolled \(id) with \(view["availablePackageCount"]?.integer ?? 0) key packages")
        }
    }
}

/// `chat devices` (getOwnDevices).
struct ChatDevices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List this account's devices, active and revoked.")

    @OptionGroup var options: ChatOptions

    func run() throws {
        let (devices, me) = try options.withClient { client in (try Self.ownDevices(client), client.device.deviceID) }
        if options.global.json {
            Output.line(ChatOptions.json(.array(devices)))
            return
        }
        for device in devices {
            let id = device["deviceId"]?.uuid
            Output.line("\(id?.description ?? "?") \(device["status"]?.text ?? "?") generation \(device["authGeneration"]?.integer ?? 0), "
                + "\(device["availablePackageCount"]?.integer ?? 0) key packages\(id == me ? " (this device)" : "")")
        }
    }

    /// Every `#deviceView` of the account, paged to the end.
    static func ownDevices(_ client: ChatClient) throws -> [ChatValue] {
        var devices: [ChatValue] = []
        var cursor: String?
        repeat {
            let page = try client.query("getOwnDevices", [("limit", "100")] + (cursor.map { [("pageCursor", $0)] } ?? []))
            devices += (page["items"]?.array ?? []).compactMap { $0["device"] }
            cursor = page["hasMore"]?.bool == true ? page["nextPageCursor"]?.text : nil
        } while cursor != nil
        return devices
    }
}

/// `chat revoke` (revokeDevice).
struct ChatRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke one of this account's devices (this one included), at its current generation.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "The device's id (see `chat devices`).")
    var deviceID: String

    func run() throws {
        guard let target = ChatUUID(deviceID) else { throw ValidationError("not a device id: \(deviceID)") }
        let view = try options.withClient { client in
            guard let device = try ChatDevices.ownDevices(client).first(where: { $0["deviceId"]?.uuid == target }),
                  let generation = device["authGeneration"]?.integer else {
                throw MLSClientError.invalidArgument("no device \(deviceID) in this account")
            }
            return try client.revoke(target, generation: generation)["device"] ?? .object([:])
        }
        if options.global.json { Output.line(ChatOptions.json(view)) } else {
            Output.line("revoked \(deviceID): \(view["status"]?.text ?? "?")")
        }
    }
}
