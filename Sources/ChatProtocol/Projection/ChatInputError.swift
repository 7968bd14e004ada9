/// Why a request does not fit the contract: the field (a path such as
/// `signedRequest.body.prior.epoch`) and what is wrong with it. The service answers
/// `InvalidRequest` with this text, and nothing is stored.
public struct ChatInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
