import MLS

/// messages.json: every field decodes as its structure and re-encodes to the same bytes.
public enum MessagesVectors {
    /// Each field of a case with a function that decodes its bytes (all of them) and re-encodes.
    public static let fields: [(name: String, roundTrip: @Sendable ([UInt8]) throws -> [UInt8])] = [
        ("mls_welcome", wrapped(.welcome)),
        ("mls_group_info", wrapped(.groupInfo)),
        ("mls_key_package", wrapped(.keyPackage)),
        ("ratchet_tree", { try RatchetTree(decoding: $0).encoded() }),
        ("group_secrets", { try GroupSecrets(decoding: $0).encoded() }),
        ("add_proposal", proposalBody(.add)),
        ("update_proposal", proposalBody(.update)),
        ("remove_proposal", proposalBody(.remove)),
        ("pre_shared_key_proposal", proposalBody(.psk)),
        ("re_init_proposal", proposalBody(.reinit)),
        ("external_init_proposal", proposalBody(.externalInit)),
        ("group_context_extensions_proposal", proposalBody(.groupContextExtensions)),
        ("commit", { try Commit(decoding: $0).encoded() }),
        ("public_message_application", publicMessage(.application)),
        ("public_message_proposal", publicMessage(.proposal)),
        ("public_message_commit", publicMessage(.commit)),
        ("private_message", wrapped(.privateMessage)),
    ]

    @Sendable
    public static func check(_ testCase: [String: Any]) throws {
        for field in fields {
            let bytes = try VectorJSON.hex(testCase, field.name)
            let reencoded: [UInt8]
            do {
                reencoded = try field.roundTrip(bytes)
            } catch {
                throw VectorMismatch("\(field.name): \(error)")
            }
            try VectorJSON.expect(reencoded, bytes, "\(field.name) re-encoding")
        }
    }

    /// The vectors hold the RFC's per-type structs (Add, Update, …) without the proposal type.
    static func proposalBody(_ type: ProposalType) -> @Sendable ([UInt8]) throws -> [UInt8] {
        { bytes in
            let proposal = try Proposal(type: type, decodingBody: bytes)
            return proposal.encodedBody()
        }
    }

    static func wrapped(_ wireFormat: WireFormat) -> @Sendable ([UInt8]) throws -> [UInt8] {
        { bytes in
            let message = try MLSMessage(decoding: bytes)
            try VectorJSON.expect(message.wireFormat, wireFormat, "wire format")
            return message.encoded()
        }
    }

    static func publicMessage(_ contentType: ContentType) -> @Sendable ([UInt8]) throws -> [UInt8] {
        { bytes in
            let message = try MLSMessage(decoding: bytes)
            guard case .publicMessage(let publicMessage) = message.body else {
                throw VectorMismatch("not a PublicMessage")
            }
            try VectorJSON.expect(publicMessage.content.contentType, contentType, "content type")
            return message.encoded()
        }
    }
}
