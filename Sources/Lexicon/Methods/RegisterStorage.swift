/// `blue.catbird.mls.registerStorage` input; the output (and getStorage's) is a
/// `StorageRegistrationView`.
public struct RegisterStorageInput: Codable, Sendable, Equatable {
    public var provider: StorageProviderView

    public init(provider: StorageProviderView) {
        self.provider = provider
    }
}
