import DeliveryStore
import Lexicon

/// `blue.catbird.mls.registerDeviceToken`: records the push registration of one of the caller's
/// devices (`did#deviceId`), replacing the device's earlier one; a token registered for another
/// device moves here (docs/push.md).
enum RegisterDeviceToken {
    typealias Input = RegisterDeviceTokenInput

    static func method(_ env: MethodEnvironment, rules: PushRegistrationRules, maxDevices: Int) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.registerDeviceToken", .procedure, maxBodySize: 16 << 10) { context in
            let registration = try rules.registration(try context.input(Input.self), caller: context.caller)
            try env.store.registerPushDevice(registration, maxDevices: maxDevices)
            return .json(DeviceTokenOutput(success: true))
        }
    }
}
