import Foundation

/// How fast one user's KeyPackages may be used up (KEY_PACKAGE_USES_*): a requester that drains
/// another user's stock leaves honest users nothing to add that user with.
public struct KeyPackageUseLimits: Sendable, Equatable {
    /// Packages of one owner (its last-resort one included) that one requester's commits may add
    /// per window (`tooManyKeyPackageUses` beyond).
    public var perRequester: Int
    /// One-time packages of one owner that all requesters' commits together may consume per window.
    /// Past it the owner's one-time packages are kept, and getKeyPackages hands out its last-resort
    /// package instead.
    public var perTarget: Int
    /// The sliding window, in seconds.
    public var window: TimeInterval

    public init(perRequester: Int = 20, perTarget: Int = 100, window: TimeInterval = 3600) {
        self.perRequester = perRequester
        self.perTarget = perTarget
        self.window = window
    }
}
