import Basics
import Foundation
import MLS

/// A client's state in one directory, one file per thing:
///
///     identity.json                 DID, atproto key, MLS signature key
///     keypackages/<ref>.json        unused KeyPackages with their private keys
///     groups/<convo>.group          Group.persist() of the conversation
///     groups/<convo>.json           ConvoRecord (read position, sent ids)
///     groups/<convo>.log            decrypted transcript, one JSON ChatEntry a line
///
/// Files holding secrets are written 0600 and replaced atomically. The bytes are not encrypted at
/// rest: the directory's permissions are the protection (Group.persist documents the contents).
public struct MLSClientStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    var identityFile: URL { directory.appendingPathComponent("identity.json") }
    var keyPackageDirectory: URL { directory.appendingPathComponent("keypackages") }
    var groupDirectory: URL { directory.appendingPathComponent("groups") }

    // MARK: Identity

    public var hasIdentity: Bool { FileManager.default.fileExists(atPath: identityFile.path) }

    public func loadIdentity() throws(MLSClientError) -> MLSClientIdentity {
        try readJSON(MLSClientIdentity.self, identityFile, missing: "no identity in \(directory.path): run `catbird-mls init` first")
    }

    public func saveIdentity(_ identity: MLSClientIdentity) throws(MLSClientError) {
        try writeJSON(identity, identityFile)
    }

    // MARK: Key packages

    public func saveKeyPackage(_ bundle: KeyPackageBundle) throws(MLSClientError) {
        try writeJSON(StoredKeyPackage(bundle), keyPackageDirectory.appendingPathComponent(Hex.encode(bundle.ref) + ".json"))
    }

    /// The stored bundle whose KeyPackageRef is `ref`, if any.
    public func keyPackage(ref: [UInt8], signingKey: SignaturePrivateKey) throws(MLSClientError) -> KeyPackageBundle? {
        let file = keyPackageDirectory.appendingPathComponent(Hex.encode(ref) + ".json")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try readJSON(StoredKeyPackage.self, file, missing: "").bundle(signingKey: signingKey)
    }

    /// The stored KeyPackage a Welcome addresses, if any of its recipients is one of ours.
    public func keyPackage(for welcome: Welcome, signingKey: SignaturePrivateKey) throws(MLSClientError) -> KeyPackageBundle? {
        for secrets in welcome.secrets {
            if let stored = try keyPackage(ref: secrets.newMember, signingKey: signingKey) { return stored }
        }
        return nil
    }

    public func deleteKeyPackage(ref: [UInt8]) {
        try? FileManager.default.removeItem(at: keyPackageDirectory.appendingPathComponent(Hex.encode(ref) + ".json"))
    }

    public func keyPackageCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: keyPackageDirectory.path))?.filter { $0.hasSuffix(".json") }.count ?? 0
    }

    // MARK: Groups

    func groupFile(_ convoId: String, _ suffix: String) throws(MLSClientError) -> URL {
        // Convo ids are hex group ids; refuse anything that could leave the directory.
        guard !convoId.isEmpty, convoId.utf8.count <= 128,
              convoId.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }) else {
            throw .invalidArgument("conversation id must be hex: \(convoId)")
        }
        return groupDirectory.appendingPathComponent(convoId + suffix)
    }

    public func saveGroup(_ group: Group, convoId: String) throws(MLSClientError) {
        try write(group.persist(), try groupFile(convoId, ".group"))
    }

    public func loadGroup(convoId: String) throws(MLSClientError) -> Group {
        let file = try groupFile(convoId, ".group")
        guard let data = FileManager.default.contents(atPath: file.path) else { throw .unknownConvo(convoId) }
        do { return try Group(restoring: Array(data)) } catch { throw .mls(error) }
    }

    public func hasGroup(convoId: String) -> Bool {
        guard let file = try? groupFile(convoId, ".group") else { return false }
        return FileManager.default.fileExists(atPath: file.path)
    }

    public func deleteGroup(convoId: String) {
        guard let file = try? groupFile(convoId, ".group") else { return }
        try? FileManager.default.removeItem(at: file)
    }

    public func loadRecord(convoId: String) throws(MLSClientError) -> ConvoRecord {
        let file = try groupFile(convoId, ".json")
        guard FileManager.default.fileExists(atPath: file.path) else { return ConvoRecord(convoId: convoId) }
        return try readJSON(ConvoRecord.self, file, missing: "")
    }

    public func saveRecord(_ record: ConvoRecord) throws(MLSClientError) {
        try writeJSON(record, try groupFile(record.convoId, ".json"))
    }

    public func records() -> [ConvoRecord] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: groupDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            try? loadRecord(convoId: String(name.dropLast(5)))
        }
    }

    public func appendTranscript(_ entries: [ChatEntry], convoId: String) throws(MLSClientError) {
        guard !entries.isEmpty else { return }
        let file = try groupFile(convoId, ".log")
        var text = Data()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for entry in entries {
            guard let line = try? encoder.encode(entry) else { throw .storage("cannot encode a transcript entry") }
            text.append(line)
            text.append(0x0A)
        }
        try ensureDirectory(groupDirectory)
        if !FileManager.default.fileExists(atPath: file.path) {
            guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw .storage("cannot create \(file.path)")
            }
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: text)
        } catch {
            throw .storage("cannot append to \(file.path): \(error)")
        }
    }

    /// The transcript entries not handed out before, other members' only (this client's own were
    /// reported when it made them); they count as shown from now on.
    public func takeUnshown(convoId: String) throws(MLSClientError) -> [ChatEntry] {
        let all = try transcript(convoId: convoId)
        var record = try loadRecord(convoId: convoId)
        let start = min(record.shownEntries ?? 0, all.count)
        record.shownEntries = all.count
        try saveRecord(record)
        return all[start...].filter { !$0.own }
    }

    public func transcript(convoId: String) throws(MLSClientError) -> [ChatEntry] {
        let file = try groupFile(convoId, ".log")
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: 0x0A).compactMap { try? decoder.decode(ChatEntry.self, from: Data($0)) }
    }

    // MARK: Files

    func ensureDirectory(_ url: URL) throws(MLSClientError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot create \(url.path): \(error)")
        }
    }

    /// Writes to a temporary file with mode 0600, then renames it over the target.
    func write(_ bytes: [UInt8], _ url: URL) throws(MLSClientError) {
        try ensureDirectory(url.deletingLastPathComponent())
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw .storage("cannot write \(temporary.path)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw .storage("cannot replace \(url.path)")
        }
    }

    func writeJSON<T: Encodable>(_ value: T, _ url: URL) throws(MLSClientError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(value) else { throw .storage("cannot encode \(url.lastPathComponent)") }
        try write(Array(data), url)
    }

    func readJSON<T: Decodable>(_ type: T.Type, _ url: URL, missing: String) throws(MLSClientError) -> T {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .storage(missing.isEmpty ? "cannot read \(url.path)" : missing)
        }
        do { return try JSONDecoder().decode(T.self, from: data) } catch { throw .storage("\(url.path) is malformed: \(error)") }
    }
}
