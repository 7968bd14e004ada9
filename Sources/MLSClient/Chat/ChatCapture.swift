import Basics
import ChatProtocol
import Foundation
import JSON
import Synchronization

/// A JSON Lines record of a chat session's requests and responses, in the format
/// scripts/chat-checks.sh reads: every XRPC part validated there against our lexicons with lexrpc,
/// every signed body's canonical DAG-CBOR compared with libipld's, every signature verified with
/// `cryptography` (Tests/Interop/README.md).
public final class ChatCapture: Sendable {
    private let path: String
    private let lock = Mutex(())

    /// A capture at `path`, emptied first unless `append` (several runs writing one capture).
    public init(path: String, append: Bool = false) {
        self.path = path
        if !append || !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
    }

    func xrpc(_ nsid: String, part: String, json: [UInt8]) {
        append(#"{"check":"xrpc","nsid":"\#(nsid)","part":"\#(part)","value":"# + String(decoding: json, as: UTF8.self) + "}")
    }

    /// Query parameters as typed JSON: integers where the lexicon says integer, arrays for repeats.
    func params(_ nsid: String, _ parameters: [(String, String)], schema: ChatSchema.ObjectType?) {
        var members: [String: [String]] = [:]
        var order: [String] = []
        for (name, value) in parameters {
            if members[name] == nil { order.append(name) }
            members[name, default: []].append(value)
        }
        var out: [UInt8] = []
        out.append(UInt8(ascii: "{"))
        for (index, name) in order.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(name, to: &out)
            out.append(UInt8(ascii: ":"))
            let values = members[name]!
            let type = schema?.properties[name]
            func scalar(_ value: String, _ type: ChatSchema.FieldType?) {
                if case .integer = type, let number = UInt64(value) { out.append(contentsOf: Array(String(number).utf8)) } else {
                    JSONString.append(value, to: &out)
                }
            }
            if case .array(let items, _, _) = type {
                out.append(UInt8(ascii: "["))
                for (i, value) in values.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    scalar(value, items)
                }
                out.append(UInt8(ascii: "]"))
            } else {
                scalar(values[0], type)
            }
        }
        out.append(UInt8(ascii: "}"))
        xrpc(nsid, part: "params", json: out)
    }

    /// A signed body with its canonical DAG-CBOR and signature (and the key, when the caller has it).
    public func signed(_ request: SignedRequest, publicKey: [UInt8]?) {
        var line = #"{"check":"signed","body":"# + String(decoding: ChatJSON.render(request.body), as: UTF8.self)
        line += #","cbor":""# + Hex.encode(request.canonicalBody) + #"","signature":""# + Base64.encode(request.signature) + "\""
        if let publicKey { line += #","publicKey":""# + Base64.encode(publicKey) + "\"" }
        append(line + "}")
    }

    /// A decoded subscription message (an event envelope with its payload).
    public func message(_ value: ChatValue) {
        append(#"{"check":"message","nsid":"blue.catbird.chat.subscribeEvents","value":"# + String(decoding: ChatJSON.render(value), as: UTF8.self) + "}")
    }

    private func append(_ line: String) {
        lock.withLock { _ in
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            defer { try? handle.close() }
            handle.seekToEndOfFile()
            handle.write(Data((line + "\n").utf8))
        }
    }
}
