// libFuzzer target for the RFC 9420 codec; built by scripts/fuzz.sh, not by SwiftPM.
// Every structure that decodes from a prefix of the input must re-encode to exactly that prefix.
import MLS

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    roundTrip(bytes, as: MLSMessage.self)
    roundTrip(bytes, as: RatchetTree.self)
    roundTrip(bytes, as: GroupSecrets.self)
    roundTrip(bytes, as: Commit.self)
    roundTrip(bytes, as: Proposal.self)
    roundTrip(bytes, as: AuthenticatedContent.self)
    roundTrip(bytes, as: GroupInfo.self)
    roundTrip(bytes, as: LeafNode.self)
    privateContentRoundTrip(bytes)
    extensionsRoundTrip(bytes)
    publishedKeyPackageRoundTrip(bytes)
    limitedDecodingAgrees(bytes)
    return 0
}

/// Decodes a `T` from the start of `bytes` and checks its encoding is the bytes it consumed.
func roundTrip<T: MLSCodable>(_ bytes: [UInt8], as type: T.Type) {
    var reader = TLSReader(bytes)
    guard let value = try? T(from: &reader) else { return }
    let consumed = Array(reader.bytesRead(from: 0))
    precondition(value.encoded() == consumed, "\(T.self) re-encoding differs from its input")
}

/// The first byte picks the content type; the rest is a PrivateMessageContent with its padding.
func privateContentRoundTrip(_ bytes: [UInt8]) {
    guard let first = bytes.first, let type = ContentType(rawValue: first % 3 + 1) else { return }
    let rest = Array(bytes.dropFirst())
    guard let content = try? PrivateMessageContent(decoding: rest, contentType: type) else { return }
    precondition(content.encoded() == rest, "PrivateMessageContent re-encoding differs from its input")
}

/// An extension list, then the typed decoder of each known extension, which must use its data exactly.
func extensionsRoundTrip(_ bytes: [UInt8]) {
    var reader = TLSReader(bytes)
    guard let extensions = try? reader.readVector(of: Extension.self) else { return }
    for item in extensions {
        let reencoded: [UInt8]?
        switch item.extensionType {
        case .applicationID: reencoded = (try? item.decodeApplicationID()).map { Extension.applicationID($0).extensionData }
        case .ratchetTree: reencoded = (try? item.decodeRatchetTree())?.encoded()
        case .requiredCapabilities: reencoded = (try? item.decodeRequiredCapabilities())?.encoded()
        case .externalPub: reencoded = (try? item.decodeExternalPub()).map { Extension.externalPub($0).extensionData }
        case .externalSenders: reencoded = (try? item.decodeExternalSenders()).map { Extension.externalSenders($0).extensionData }
        default: reencoded = nil
        }
        if let reencoded { precondition(reencoded == item.extensionData, "extension \(item.extensionType) re-encoding differs") }
    }
}

/// A published KeyPackage, wrapped or bare: whichever form the bytes were read in must re-encode to
/// exactly them, so the service serves back what was published and both forms share one ref.
func publishedKeyPackageRoundTrip(_ bytes: [UInt8]) {
    guard let (keyPackage, encoding) = try? KeyPackage.decodePublished(bytes) else { return }
    let reencoded = encoding == .bare ? keyPackage.encoded() : MLSMessage(body: .keyPackage(keyPackage)).encoded()
    precondition(reencoded == bytes, "published KeyPackage (\(encoding)) re-encoding differs from its input")
}

/// Decoding within limits (the first byte picks how many entries a vector may hold, and how many
/// leaves a tree may reach) either refuses or gives exactly what decoding without them gives; a
/// tree that decodes within its limits is imported within them without trapping.
func limitedDecodingAgrees(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    let limits = DecodingLimits(maxVectorElements: Int(first % 16))
    if let limited = try? MLSMessage(decoding: rest, limits: limits) {
        precondition(limited == (try? MLSMessage(decoding: rest)), "MLSMessage decoded within limits differs")
    }
    let treeLimits = TreeLimits(maxLeaves: UInt32(first % 16) + 1, maxMembers: Int(first >> 4))
    guard let tree = try? RatchetTree(decoding: rest, limits: treeLimits) else { return }
    precondition(tree == (try? RatchetTree(decoding: rest)), "RatchetTree decoded within limits differs")
    precondition(tree.nodes.count <= treeLimits.maxNodes, "a tree past its limits decoded")
    if let imported = try? PublicRatchetTree(suite: .mls128DHKEMX25519AES128GCMSHA256Ed25519, tree: tree, limits: treeLimits) {
        precondition(imported.leafCount <= 2 * treeLimits.maxLeaves, "an imported tree is wider than its limits allow")
        precondition(imported.memberCount <= treeLimits.maxMembers, "an imported tree has more members than its limits allow")
    }
}
