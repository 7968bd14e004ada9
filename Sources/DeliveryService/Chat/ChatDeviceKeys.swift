import ChatProtocol
import DeliveryStore
import Synchronization

/// The signing keys of devices the service has seen, so that a sendMessage can verify its
/// signature without a database read first. A device's key never changes (CHAT.md §4), so a cached
/// key is never stale; whether the device is still active, at which generation and with which key
/// id is checked in the transaction that stores the message, as every signed call checks it.
/// Bounded: when full, the cache starts over.
final class ChatDeviceKeys: Sendable {
    struct Key: Sendable {
        let keyID: String
        let publicKey: [UInt8]
    }

    private let keys = Mutex<[String: Key]>([:])
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    static func id(_ did: String, _ device: ChatUUID) -> String { did + " " + device.description }

    func key(did: String, device: ChatUUID) -> Key? { keys.withLock { $0[Self.id(did, device)] } }

    func remember(_ device: ChatDevice) {
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[Self.id(device.userDID, device.deviceID)] = Key(keyID: device.keyID, publicKey: device.publicKey)
        }
    }
}
