/// passive-client-random.json: 200 epochs of random adds, removes and updates (RFC 9420 §12). Member and PublicGroup both follow every epoch.
public enum PassiveClientRandomVectors {
    public static func check(_ testCase: [String: Any]) throws { try PassiveClient.run(testCase) }
}
