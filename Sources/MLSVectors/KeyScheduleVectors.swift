import MLS

/// key-schedule.json: five chained epochs of the RFC 9420 §8 key schedule per suite.
public enum KeyScheduleVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let groupID = try VectorJSON.hex(testCase, "group_id")
        var initSecret = try VectorJSON.hex(testCase, "initial_init_secret")
        guard let epochs = try VectorJSON.array(testCase, "epochs") as? [[String: Any]] else {
            throw VectorMismatch("epochs is not an array of objects")
        }
        for (index, epoch) in epochs.enumerated() {
            let groupContext = GroupContext(
                cipherSuite: suite.rawValue, groupID: groupID, epoch: UInt64(index),
                treeHash: try VectorJSON.hex(epoch, "tree_hash"),
                confirmedTranscriptHash: try VectorJSON.hex(epoch, "confirmed_transcript_hash")).encoded()
            try VectorJSON.expect(groupContext, try VectorJSON.hex(epoch, "group_context"), "epoch \(index) group_context")

            let secrets = try EpochSecrets(
                suite: suite, initSecret: initSecret, commitSecret: try VectorJSON.hex(epoch, "commit_secret"),
                pskSecret: try VectorJSON.hex(epoch, "psk_secret"), groupContext: groupContext)
            let outputs: [(String, [UInt8])] = [
                ("joiner_secret", secrets.joinerSecret),
                ("welcome_secret", secrets.welcomeSecret),
                ("init_secret", secrets.initSecret),
                ("sender_data_secret", secrets.senderDataSecret),
                ("encryption_secret", secrets.encryptionSecret),
                ("exporter_secret", secrets.exporterSecret),
                ("epoch_authenticator", secrets.epochAuthenticator),
                ("external_secret", secrets.externalSecret),
                ("confirmation_key", secrets.confirmationKey),
                ("membership_key", secrets.membershipKey),
                ("resumption_psk", secrets.resumptionPSK),
                ("external_pub", try secrets.externalKeyPair().publicKey),
            ]
            for (field, value) in outputs {
                try VectorJSON.expect(value, try VectorJSON.hex(epoch, field), "epoch \(index) \(field)")
            }
            let exporter = try VectorJSON.object(epoch, "exporter")
            // The label looks like hex but is used as the text itself (FORMAT.md: "label": string);
            // decoding it as hex gives the wrong secret.
            let exported = try secrets.exporter(
                label: Array(try VectorJSON.string(exporter, "label").utf8), context: try VectorJSON.hex(exporter, "context"),
                length: try VectorJSON.int(exporter, "length"))
            try VectorJSON.expect(exported, try VectorJSON.hex(exporter, "secret"), "epoch \(index) exporter")
            initSecret = secrets.initSecret
        }
    }
}
