import Basics
import Lexicon

/// `blue.catbird.mls.getKeyPackages`: one unconsumed, unexpired KeyPackage per DID; fetching does
/// not consume (a package is consumed when a validated commit adds it).
enum GetKeyPackages {
    typealias Output = GetKeyPackagesOutput

    static let maxDIDs = 100

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getKeyPackages", .query) { context in
            let parameters = context.parameters
            let requested = parameters.all("dids")
            guard !requested.isEmpty else { throw XRPCError.invalidRequest("missing parameter dids") }
            guard requested.count <= maxDIDs else { throw XRPCError(400, .tooManyDids, "at most \(maxDIDs) DIDs") }
            var dids: [DID] = []
            for text in requested {
                let did = try InputValidation.did(text)
                if !dids.contains(did) { dids.append(did) }
            }
            let suite = try parameters.string("cipherSuite").map(CipherSuiteName.id)
            let selection = try env.store.keyPackages(for: dids, cipherSuite: suite)
            return .json(Output(keyPackages: selection.packages.map(KeyPackageRef.init),
                                missing: selection.missing.isEmpty ? nil : selection.missing))
        }
    }
}
