import Primitives

/// A versioned encoding of a member's whole state. It CONTAINS SECRETS: the signature private key,
/// the tree private keys, joiner_secret and psk_secret of the epoch (from which every epoch secret
/// is re-derived), external and resumption PSKs. Store it encrypted at rest.
///
/// The secret tree is rebuilt from encryption_secret and every ratchet this member used is moved
/// past the generations already consumed, so no key or nonce is used twice after a restore; keys
/// retained for out-of-order messages are not kept.
extension Group {
    static let magic: [UInt8] = Array("MLSGR".utf8)
    /// 2 added the wire format policy; version 1 states restore with the default policy.
    static let formatVersion: UInt8 = 2

    public func persist() -> [UInt8] {
        var writer = TLSWriter(capacity: 8192)
        writer.writeBytes(Self.magic)
        writer.write(Self.formatVersion)
        writer.writeOpaque(publicGroup.serialize())
        writer.write(ownLeaf)
        writer.write(UInt8(isActive ? 1 : 0))
        writer.write(signingKey.scheme.rawValue)
        writer.writeOpaque(signingKey.bytes)
        writer.writeOpaque(epochSecrets.joinerSecret)
        writer.writeOptional(pskSecret) { w, v in w.writeOpaque(v) }
        writer.writeVector { w in
            for (node, pair) in privateTree.keys.sorted(by: { $0.key < $1.key }) {
                w.write(node)
                w.writeOpaque(pair.privateKey)
                w.writeOpaque(pair.publicKey)
            }
        }
        writer.writeVector { w in
            for (id, psk) in externalPSKs.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                w.writeOpaque(id)
                w.writeOpaque(psk)
            }
        }
        writer.writeVector { w in
            for entry in resumptionPSKs {
                w.write(entry.epoch)
                w.writeOpaque(entry.psk)
            }
        }
        writer.writeVector { w in
            for (mark, generation) in ratchetWatermarks.sorted(by: { ($0.key.leaf, $0.value) < ($1.key.leaf, $1.value) }) {
                w.write(mark.leaf)
                w.write(UInt8(mark.handshake ? 1 : 0))
                w.write(generation)
            }
        }
        writer.write(configuration.ratchetWindow.maxForwardDistance)
        writer.write(UInt32(clamping: configuration.ratchetWindow.maxRetainedKeys))
        writer.write(UInt32(clamping: configuration.resumptionPSKHistory))
        writer.write(configuration.wireFormatPolicy.outgoing.rawValue)
        writer.write(configuration.wireFormatPolicy.incoming.rawValue)
        return writer.bytes
    }

    public init(restoring bytes: [UInt8]) throws(GroupError) {
        do {
            try self.init(decoding: bytes)
        } catch let error as GroupError {
            throw error
        } catch let error as DecodingError {
            throw .decoding(error)
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch let error as TreeError {
            throw .tree(error)
        } catch let error as ScheduleError {
            throw .schedule(error)
        } catch {
            throw .invalidSerializedState("\(error)")
        }
    }

    private init(decoding bytes: [UInt8]) throws {
        guard bytes.count > Self.magic.count, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw GroupError.invalidSerializedState("not a persisted Group")
        }
        var reader = TLSReader(bytes)
        _ = try reader.readBytes(Self.magic.count)
        let version = try reader.readUInt8()
        guard version == 1 || version == Self.formatVersion else {
            throw GroupError.invalidSerializedState("format version \(version)")
        }
        let state = try PublicGroup(serialized: try reader.readOpaque()).state
        let suite = state.suite
        let ownLeaf = try reader.readUInt32()
        let active = try reader.readUInt8() == 1
        guard let scheme = SignatureScheme(rawValue: try reader.readUInt16()), scheme == suite.signatureScheme else {
            throw GroupError.cipherSuiteMismatch
        }
        let signingKey = try SignaturePrivateKey(scheme: scheme, bytes: try reader.readOpaque())
        let joinerSecret = try reader.readOpaque()
        let pskSecret = try reader.readOptional { (r: inout TLSReader) throws(DecodingError) in try r.readOpaque() }
        let keys = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in
            (try r.readUInt32(), HPKEKeyPair(privateKey: try r.readOpaque(), publicKey: try r.readOpaque()))
        }
        let external = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in (try r.readOpaque(), try r.readOpaque()) }
        let resumption = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in (epoch: try r.readUInt64(), psk: try r.readOpaque()) }
        let marks = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in
            (RatchetMark(leaf: try r.readUInt32(), handshake: try r.readUInt8() == 1), try r.readUInt32())
        }
        let window = RatchetWindow(maxForwardDistance: try reader.readUInt32(), maxRetainedKeys: Int(try reader.readUInt32()))
        let history = Int(try reader.readUInt32())
        var policy = GroupConfiguration.default.wireFormatPolicy
        if version >= 2 {
            guard let outgoing = WireFormatPolicy.Outgoing(rawValue: try reader.readUInt8()),
                  let incoming = WireFormatPolicy.Incoming(rawValue: try reader.readUInt8()) else {
                throw GroupError.invalidSerializedState("wire format policy")
            }
            policy = WireFormatPolicy(outgoing: outgoing, incoming: incoming)
        }
        try reader.finish()

        guard let leafPair = keys.first(where: { $0.0 == 2 * ownLeaf })?.1 else {
            throw GroupError.invalidSerializedState("no leaf key")
        }
        var privateTree = TreePrivateState(suite: suite, leafIndex: ownLeaf, leafKeyPair: leafPair)
        for (node, pair) in keys { privateTree.setKeyPair(pair, at: node) }
        let secrets = try EpochSecrets(suite: suite, joinerSecret: joinerSecret, pskSecret: pskSecret,
                                       groupContext: state.context.encoded())
        try self.init(
            state: state, ownLeaf: ownLeaf,
            configuration: GroupConfiguration(ratchetWindow: window, resumptionPSKHistory: history, wireFormatPolicy: policy),
            epochSecrets: secrets, pskSecret: pskSecret, privateTree: privateTree, signingKey: signingKey,
            externalPSKs: Dictionary(external, uniquingKeysWith: { a, _ in a }), resumptionPSKs: resumption)
        isActive = active
        for (mark, generation) in marks {
            let type: RatchetType = mark.handshake ? .handshake : .application
            while try secretTree.currentGeneration(leaf: mark.leaf, type: type) < generation {
                _ = try secretTree.next(leaf: mark.leaf, type: type)
            }
            ratchetWatermarks[mark] = generation
        }
    }
}
