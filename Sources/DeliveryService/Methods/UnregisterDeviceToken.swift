import DeliveryStore
import Lexicon

/// `blue.catbird.mls.unregisterDeviceToken`: forgets one of the caller's devices' push registration
/// and its pending pushes.
enum UnregisterDeviceToken {
    typealias Input = UnregisterDeviceTokenInput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.unregisterDeviceToken", .procedure, maxBodySize: 4 << 10) { context in
            let deviceID = try PushRegistrationRules.deviceID(try context.input(Input.self).deviceId)
            return .json(DeviceTokenOutput(success: try env.store.unregisterPushDevice(did: context.caller, deviceID: deviceID)))
        }
    }
}
