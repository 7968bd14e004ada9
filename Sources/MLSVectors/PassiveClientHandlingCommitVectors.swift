/// passive-client-handling-commit.json: two epochs of proposals by value and by reference, PSKs, UpdatePaths (RFC 9420 §12). Member and PublicGroup both follow every epoch.
public enum PassiveClientHandlingCommitVectors {
    public static func check(_ testCase: [String: Any]) throws { try PassiveClient.run(testCase) }
}
