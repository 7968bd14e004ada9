import ChatProtocol
import Foundation
import HTTP

/// The `blue.catbird.chat.*` methods over XRPC (CHAT.md): signed procedures, unsigned ones and
/// queries. Every answer is read against the method's lexicon (`ChatProjection`), so a response
/// that strays from the contract is an error here, as it would be in the app.
public struct ChatAPI: Sendable {
    public let client: MLSAPIClient
    /// A fresh service-auth token for one call of `nsid` (the contract's: at most 60 s, one use).
    public let token: @Sendable (_ nsid: String) throws -> String
    /// Where every request and response is written for the independent checks (scripts/chat-checks.sh).
    public let capture: ChatCapture?
    let projection = ChatProjection()

    public init(client: MLSAPIClient, capture: ChatCapture? = nil, token: @escaping @Sendable (String) throws -> String) {
        self.client = client
        self.token = token
        self.capture = capture
    }

    public static func nsid(_ method: String) -> String { "blue.catbird.chat." + method }

    /// A signed procedure: `{signedRequest}` of `body` signed by `key`. The signer captures the
    /// signed body, since the checks need the public key with it.
    @discardableResult
    public func signed(_ method: String, _ request: SignedRequest) throws -> ChatValue {
        try procedure(method, request.input(for: Self.nsid(method)))
    }

    /// A procedure with a JSON input.
    @discardableResult
    public func procedure(_ method: String, _ input: ChatValue) throws -> ChatValue {
        let nsid = Self.nsid(method)
        let body = ChatJSON.render(input)
        capture?.xrpc(nsid, part: "input", json: body)
        return try answer(nsid, XRPCRequest(nsid: nsid, kind: .procedure(body: body, contentType: "application/json")))
    }

    /// A query with its parameters (a repeated name is an array).
    public func query(_ method: String, _ parameters: [(String, String)]) throws -> ChatValue {
        let nsid = Self.nsid(method)
        capture?.params(nsid, parameters, schema: projection.schema.method(nsid)?.parameters)
        return try answer(nsid, XRPCRequest(nsid: nsid, kind: .query, parameters: parameters))
    }

    func answer(_ nsid: String, _ request: XRPCRequest) throws -> ChatValue {
        let response = try client.sendBlocking(request, token: try token(nsid))
        guard let output = projection.schema.method(nsid)?.output else { return .object([:]) }
        capture?.xrpc(nsid, part: "output", json: response.body)
        do {
            return try projection.project(json: response.body, as: output)
        } catch {
            throw MLSAPIError.decoding("\(nsid): the answer does not fit the lexicon: \(error)")
        }
    }

    /// The error code of a refused call, if `error` is one.
    public static func code(of error: any Error) -> String? {
        if case .http(_, let name, _)? = error as? MLSAPIError { return name }
        return nil
    }
}
