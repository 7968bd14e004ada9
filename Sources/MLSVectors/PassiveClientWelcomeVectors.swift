/// passive-client-welcome.json: joining by Welcome with the tree in the Welcome or out of band, with and without external PSKs (RFC 9420 §12). Member and PublicGroup both follow every epoch.
public enum PassiveClientWelcomeVectors {
    public static func check(_ testCase: [String: Any]) throws { try PassiveClient.run(testCase) }
}
