/// `blue.catbird.mls.getKeyPackages` output: one package per DID that has one.
public struct GetKeyPackagesOutput: Codable, Sendable, Equatable {
    public var keyPackages: [KeyPackageRef]
    /// DIDs without an available package.
    public var missing: [String]?

    public init(keyPackages: [KeyPackageRef], missing: [String]? = nil) {
        self.keyPackages = keyPackages
        self.missing = missing
    }
}
