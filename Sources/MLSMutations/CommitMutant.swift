import Basics
import MLS

/// One altered copy of a valid commit, as the MLSMessage bytes a delivery service would receive.
public struct CommitMutant: Sendable {
    /// The field changed and how, e.g. `path.nodes[1].ciphertexts[0] dropped`.
    public let field: String
    public let bytes: [UInt8]
    /// The change is to something only a holder of the epoch's secrets can judge: the contents or
    /// order of HPKE ciphertexts, a MAC, the KEM output of an ExternalInit, a PSK the members may
    /// not hold. A public observer may accept such a mutant that a member refuses (docs/validation.md).
    public let secretDependent: Bool
}

/// Collects the mutants of one scenario; every helper skips a change that changes nothing.
struct MutantList {
    let scenario: CommitScenario
    private(set) var items: [CommitMutant] = []

    init(_ scenario: CommitScenario) { self.scenario = scenario }

    var content: FramedContent { scenario.original.content }
    var commit: Commit { scenario.originalCommit }

    /// The FramedContent changed, then framed again as the committer would.
    mutating func content(_ field: String, secret: Bool = false, _ change: (inout FramedContent) -> Void) {
        var changed = content
        change(&changed)
        guard changed != content else { return }
        items.append(CommitMutant(field: field, bytes: scenario.resealed(changed), secretDependent: secret))
    }

    /// The Commit changed, then framed again as the committer would.
    mutating func commit(_ field: String, secret: Bool = false, _ change: (inout Commit) -> Void) {
        var changed = commit
        change(&changed)
        guard changed != commit else { return }
        content(field, secret: secret) { $0.content = .commit(changed) }
    }

    /// The PublicMessage changed after framing: no signature or MAC is made again.
    mutating func framed(_ field: String, secret: Bool = false, _ change: (inout PublicMessage) -> Void) {
        var changed = scenario.original
        change(&changed)
        guard changed != scenario.original else { return }
        items.append(CommitMutant(field: field, bytes: MLSMessage(body: .publicMessage(changed)).encoded(), secretDependent: secret))
    }

    mutating func bytes(_ field: String, _ bytes: [UInt8], secret: Bool = false) {
        items.append(CommitMutant(field: field, bytes: bytes, secretDependent: secret))
    }
}

extension Array where Element == UInt8 {
    /// The same bytes with one bit of byte `index` flipped (no change for an empty array).
    func flipping(_ index: Int, bit: Int = 0) -> [UInt8] {
        guard !isEmpty else { return self }
        var copy = self
        copy[index % count] ^= UInt8(1 << (bit % 8))
        return copy
    }
}
