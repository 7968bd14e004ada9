import DeliveryStore
import Lexicon

/// `blue.catbird.mls.getStorage`: the caller's storage registration, or 404 StorageNotRegistered.
enum GetStorage {
    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getStorage", .query) { context in
            guard let registration = try env.store.storage(did: context.caller) else {
                throw XRPCError.notFound(.storageNotRegistered, "the caller has not registered storage")
            }
            return .json(StorageRegistrationView(registration))
        }
    }
}
