/// The 16 files of ../shared/mls-test-vectors and the checks that run them. A file whose check is
/// nil is reported with every case failed ("not implemented"), never skipped.
public enum VectorCatalog {
    public static let files: [VectorFile] = [
        VectorFile(name: "tree-math", check: TreeMathVectors.check),
        VectorFile(name: "deserialization", check: DeserializationVectors.check),
        VectorFile(name: "crypto-basics", check: CryptoBasicsVectors.check),
        VectorFile(name: "secret-tree", check: SecretTreeVectors.check),
        VectorFile(name: "key-schedule", check: KeyScheduleVectors.check),
        VectorFile(name: "psk_secret", check: PSKSecretVectors.check),
        VectorFile(name: "transcript-hashes", check: TranscriptHashesVectors.check),
        VectorFile(name: "message-protection", check: MessageProtectionVectors.check),
        VectorFile(name: "welcome", check: WelcomeVectors.check),
        VectorFile(name: "messages", check: MessagesVectors.check),
        VectorFile(name: "tree-operations", check: TreeOperationsVectors.check),
        VectorFile(name: "tree-validation", check: TreeValidationVectors.check),
        VectorFile(name: "treekem", check: TreeKEMVectors.check),
        VectorFile(name: "passive-client-welcome", check: PassiveClientWelcomeVectors.check),
        VectorFile(name: "passive-client-handling-commit", check: PassiveClientHandlingCommitVectors.check),
        VectorFile(name: "passive-client-random", check: PassiveClientRandomVectors.check),
    ]

    public static func file(named name: String) -> VectorFile? {
        files.first { $0.name == name || $0.name + ".json" == name }
    }
}
