import DeliveryStore
import Lexicon

/// `blue.catbird.mls.registerStorage`: records where the caller keeps thin-mode ciphertext, so
/// that sendMessage can hand senders each recipient's storage (API.md, "Thin delivery-service
/// mode"). One registration per DID; registering again replaces it.
enum RegisterStorage {
    typealias Input = RegisterStorageInput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.registerStorage", .procedure, maxBodySize: 16 << 10) { context in
            let caller = context.caller
            let provider = try context.input(Input.self).provider.validated()
            return .json(StorageRegistrationView(try env.store.registerStorage(did: caller, provider: provider)))
        }
    }
}
