import ChatProtocol
import Foundation
import Store

/// A row of `chat_devices` with its KeyPackage counts (`#deviceView`).
public struct ChatDevice: Sendable {
    public var userDID: String
    public var deviceID: ChatUUID
    public var keyID: String
    public var publicKey: [UInt8]
    public var authGeneration: Int64
    public var isActive: Bool
    public var name: String
    /// The `#deviceCapability` it enrolled with, canonical JSON.
    public var capability: [UInt8]
    public var createdAt: Date
    public var updatedAt: Date
    public var availablePackages: Int
    public var reservedPackages: Int

    public init(userDID: String, deviceID: ChatUUID, keyID: String, publicKey: [UInt8], authGeneration: Int64, isActive: Bool,
                name: String, capability: [UInt8], createdAt: Date, updatedAt: Date, availablePackages: Int = 0, reservedPackages: Int = 0) {
        self.userDID = userDID
        self.deviceID = deviceID
        self.keyID = keyID
        self.publicKey = publicKey
        self.authGeneration = authGeneration
        self.isActive = isActive
        self.name = name
        self.capability = capability
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.availablePackages = availablePackages
        self.reservedPackages = reservedPackages
    }
}

/// A KeyPackage a device uploaded, validated by the caller (`PublicGroup.validateKeyPackage` and
/// the contract's checks): its ref, exact MLSMessage bytes and end of life.
public struct ChatKeyPackage: Sendable {
    public var ref: [UInt8]
    public var wrapper: [UInt8]
    public var wrapperSHA256: [UInt8]
    public var notAfter: Date

    public init(ref: [UInt8], wrapper: [UInt8], wrapperSHA256: [UInt8], notAfter: Date) {
        self.ref = ref
        self.wrapper = wrapper
        self.wrapperSHA256 = wrapperSHA256
        self.notAfter = notAfter
    }
}

extension ChatTransaction {
    /// Live (available or reserved) KeyPackages of one device (defs `deviceView`: at most 1000).
    public static let maxLivePackages = 1000
    /// Active devices per DID (`conversationState`: 20).
    public static let maxActiveDevices = 20

    static let deviceColumns = """
        d.user_did, d.device_id, d.key_id, d.signature_public_key, d.auth_generation, d.status, d.device_name,
        d.capability, d.created_at, d.updated_at,
        (SELECT count(*) FROM chat_key_packages k WHERE k.owner_did = d.user_did AND k.owner_device_id = d.device_id
            AND k.status = 'available' AND k.not_after > $\(99)) AS available,
        (SELECT count(*) FROM chat_key_packages k WHERE k.owner_did = d.user_did AND k.owner_device_id = d.device_id
            AND k.status = 'reserved') AS reserved
        """

    static func device(from row: PGRow) throws -> ChatDevice {
        ChatDevice(userDID: try row.string("user_did"), deviceID: try row.chatUUID("device_id"), keyID: try row.string("key_id"),
                   publicKey: try row.bytes("signature_public_key"), authGeneration: try row.int64("auth_generation"),
                   isActive: try row.string("status") == "active", name: try row.string("device_name"),
                   capability: try row.bytes("capability"), createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
                   availablePackages: try row.int("available"), reservedPackages: try row.int("reserved"))
    }

    /// The device, with `lock` its row locked (FOR SHARE: a revocation waits for this transaction).
    public func device(did: String, id: ChatUUID, lock: Bool = false) throws -> ChatDevice? {
        let columns = Self.deviceColumns.replacingOccurrences(of: "$99", with: "$3")
        let rows = try connection.query(
            "SELECT \(columns) FROM chat_devices d WHERE d.user_did = $1 AND d.device_id = $2\(lock ? " FOR SHARE OF d" : "")",
            [did, id, now])
        return try rows.first.map(Self.device)
    }

    /// Every device of one DID, active first, then by creation.
    public func devices(did: String) throws -> [ChatDevice] {
        let columns = Self.deviceColumns.replacingOccurrences(of: "$99", with: "$2")
        return try connection.query(
            "SELECT \(columns) FROM chat_devices d WHERE d.user_did = $1 ORDER BY d.status, d.created_at, d.device_id",
            [did, now]).map(Self.device)
    }

    /// The active devices of several DIDs (getDevices).
    public func activeDevices(dids: [String]) throws -> [ChatDevice] {
        let columns = Self.deviceColumns.replacingOccurrences(of: "$99", with: "$2")
        return try connection.query("""
            SELECT \(columns) FROM chat_devices d WHERE d.user_did = ANY($1) AND d.status = 'active'
            ORDER BY d.user_did COLLATE "C", d.device_id
            """, [PGArray(dids), now]).map(Self.device)
    }

    /// A new device (enrollDevice) with its first KeyPackages, under the DID's advisory lock so that
    /// two enrollments cannot both pass the device limit.
    public func enroll(_ device: ChatDevice, keyPackages: [ChatKeyPackage]) throws {
        try connection.execute("SELECT pg_advisory_xact_lock(hashtext('chat-device:' || $1))", [device.userDID])
        let existing = try connection.query(
            "SELECT status FROM chat_devices WHERE user_did = $1 AND device_id = $2", [device.userDID, device.deviceID])
        if let row = existing.first {
            throw try row.string("status") == "revoked"
                ? ChatRefusal(.deviceTombstoned, "this device id was revoked and cannot enroll again")
                : ChatRefusal(.deviceAlreadyExists, "this device is already enrolled")
        }
        guard try connection.query("SELECT 1 FROM chat_devices WHERE key_id = $1", [device.keyID]).isEmpty else {
            throw ChatRefusal(.deviceAlreadyExists, "another device enrolled with this key")
        }
        let active = try connection.query(
            "SELECT count(*) AS n FROM chat_devices WHERE user_did = $1 AND status = 'active'", [device.userDID]).first!.int("n")
        guard active < Self.maxActiveDevices else {
            throw ChatRefusal(.deviceLimitReached, "at most \(Self.maxActiveDevices) active devices per account")
        }
        try connection.execute("""
            INSERT INTO chat_devices (user_did, device_id, key_id, signature_public_key, auth_generation, status,
                                      device_name, capability, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $8, $8)
            """, [device.userDID, device.deviceID, device.keyID, device.publicKey, device.authGeneration, device.name,
                  device.capability, now])
        try addKeyPackages(keyPackages, did: device.userDID, device: device.deviceID)
    }

    /// More KeyPackages for an active device, all or none (replenishKeyPackages).
    public func replenish(did: String, device: ChatUUID, keyPackages: [ChatKeyPackage]) throws {
        try connection.execute("SELECT 1 FROM chat_devices WHERE user_did = $1 AND device_id = $2 FOR UPDATE", [did, device])
        try addKeyPackages(keyPackages, did: did, device: device)
    }

    private func addKeyPackages(_ packages: [ChatKeyPackage], did: String, device: ChatUUID) throws {
        let live = try connection.query("""
            SELECT count(*) AS n FROM chat_key_packages WHERE owner_did = $1 AND owner_device_id = $2
                AND (status = 'reserved' OR (status = 'available' AND not_after > $3))
            """, [did, device, now]).first!.int("n")
        guard live + packages.count <= Self.maxLivePackages else {
            throw ChatRefusal(.keyPackageInventoryLimitReached,
                              "a device holds at most \(Self.maxLivePackages) live KeyPackages (\(live) now)")
        }
        let known = try connection.query("SELECT 1 FROM chat_key_packages WHERE key_package_ref = ANY($1)",
                                         [PGArray(packages.map(\.ref))])
        guard known.isEmpty else { throw ChatRefusal(.invalidKeyPackage, "a KeyPackage was uploaded before") }
        for package in packages {
            try connection.execute("""
                INSERT INTO chat_key_packages (key_package_ref, owner_did, owner_device_id, wrapper, wrapper_sha256, not_after,
                                               status, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, 'available', $7)
                """, [package.ref, did, device, package.wrapper, package.wrapperSHA256, package.notAfter, now])
        }
    }

    /// Revokes one of a DID's devices at `generation` (revokeDevice): its packages are revoked and
    /// its open recovery requests cancelled; its leaves stay in their groups until removed.
    public func revoke(did: String, device: ChatUUID, generation: Int64) throws {
        let rows = try connection.query(
            "SELECT status, auth_generation FROM chat_devices WHERE user_did = $1 AND device_id = $2 FOR UPDATE", [did, device])
        guard let row = rows.first else { throw ChatRefusal(.deviceNotFound, "no such device of this account") }
        guard try row.int64("auth_generation") == generation, try row.string("status") == "active" else {
            throw ChatRefusal(.authenticationGenerationConflict, "the device is at another authentication generation or already revoked")
        }
        try connection.execute(
            "UPDATE chat_devices SET status = 'revoked', updated_at = $3 WHERE user_did = $1 AND device_id = $2", [did, device, now])
        try connection.execute("""
            UPDATE chat_key_packages SET status = 'revoked', reserved_for = NULL
            WHERE owner_did = $1 AND owner_device_id = $2 AND status IN ('available', 'reserved')
            """, [did, device])
        try connection.execute("""
            UPDATE chat_recoveries SET status = 'cancelled', reservation_status = 'released'
            WHERE requester_did = $1 AND requester_device_id = $2 AND status = 'open'
            """, [did, device])
        // Its push registration (updatePushToken) and pending pushes go with it.
        try connection.execute("DELETE FROM push_devices WHERE did = $1 AND device_id = $2", [did, device.description])
        try connection.execute("DELETE FROM push_outbox WHERE did = $1 AND device_id = $2", [did, device.description])
        // Its open event streams close on every node (ChatEventHub).
        try connection.execute("SELECT pg_notify('chat_revocations', $1)", ["\(did) \(device)"])
    }
}
