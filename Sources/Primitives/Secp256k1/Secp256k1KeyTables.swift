import Synchronization

extension Secp256k1 {
    /// Precomputation for a public key that verifies again and again (a caller's DID key, kept with
    /// its DID document): affine odd multiples of 2^(32j)·Q and 2^(32j)·λ·Q for j = 0…3. With them
    /// u2·Q runs as eight 32-bit wNAF streams (the GLV halves, each cut into four 32-bit parts),
    /// beside eight for u1·G (`GeneratorTable.Eighths`): 32 doublings per verification instead of
    /// 128, and no table to build per verification. About 4 KB (`KeyTablesBudget`).
    struct KeyTables: Sendable {
        /// wNAF width of the key's streams: 2^(w−2) = 8 points per table.
        static let width = 5

        /// Points per table.
        static let perTable = 1 << (width - 2)

        /// Eight tables of `perTable` points, one after the other: the odd multiples of 2^(32j)·Q for
        /// j = 0…3, then of 2^(32j)·λ·Q (`table(_:lambda:)`).
        let points: [AffinePoint]

        /// `point` must be a valid public key (on the curve, not infinity): no multiple below n is
        /// then infinity.
        init(_ point: AffinePoint) {
            var bases = [JacobianPoint(point)]
            for _ in 1..<4 { bases.append(bases[bases.count - 1].doubled(times: 32)) }
            let q = GeneratorTable.oddMultiples(of: bases, count: Self.perTable)
            points = q + q.map(\.lambdaImage)
        }

        /// The odd multiples of 2^(32j)·Q, or of 2^(32j)·λ·Q.
        func table(_ j: Int, lambda: Bool = false) -> ArraySlice<AffinePoint> {
            let start = ((lambda ? 4 : 0) + j) * Self.perTable
            return points[start..<start + Self.perTable]
        }
    }

    /// How many keys in the process may hold `KeyTables` at once (about 4 KB each): a bound on
    /// the memory a crowd of callers can pin.
    final class KeyTablesBudget: Sendable {
        static let shared = KeyTablesBudget(limit: 4096)

        let limit: Int
        private let held = Atomic<Int>(0)

        init(limit: Int) { self.limit = limit }

        var inUse: Int { held.load(ordering: .relaxed) }

        func take() -> Bool {
            guard held.add(1, ordering: .relaxed).newValue <= limit else {
                held.subtract(1, ordering: .relaxed)
                return false
            }
            return true
        }

        func giveBack() { held.subtract(1, ordering: .relaxed) }
    }

    /// A public key's `KeyTables`, built on its second verification: a key seen once (a stranger's
    /// token) costs nothing more than before. A key that finds the budget spent verifies without
    /// tables for good.
    final class KeyTablesCache: Sendable {
        private enum State {
            case unused, usedOnce, building, built(KeyTables), declined
        }

        private let state = Mutex<State>(.unused)
        private let budget: KeyTablesBudget

        init(budget: KeyTablesBudget = .shared) { self.budget = budget }

        deinit {
            let built = state.withLock { state in
                if case .built = state { return true }
                return false
            }
            if built { budget.giveBack() }
        }

        /// The tables for `point` (this key's), if it has them or should have them now.
        func tables(for point: AffinePoint) -> KeyTables? {
            let shouldBuild: Bool = state.withLock { state in
                switch state {
                case .unused:
                    state = .usedOnce
                    return false
                case .usedOnce:
                    guard budget.take() else {
                        state = .declined
                        return false
                    }
                    state = .building
                    return true
                case .building, .built, .declined:
                    return false
                }
            }
            if shouldBuild {
                // Built outside the lock: another thread verifying with this key meanwhile takes the
                // general path instead of waiting.
                let tables = KeyTables(point)
                state.withLock { $0 = .built(tables) }
                return tables
            }
            return state.withLock { state in
                if case .built(let tables) = state { return tables }
                return nil
            }
        }
    }
}

extension Secp256k1.GeneratorTable {
    /// Affine odd multiples of 2^(32j)·G for j = 0…7: u1·G runs as eight 32-bit wNAF streams for
    /// keys with `KeyTables`. Width 10: 256 points each, 128 KB in all, half of what the tables of
    /// the 64-bit streams took (width 11 measured no faster). Built on first use.
    struct Eighths: Sendable {
        static let width = 10

        /// Points per table.
        static let perTable = 1 << (width - 2)

        /// Eight tables of `perTable` points, one after the other: the odd multiples of 2^(32j)·G.
        let points: [Secp256k1.AffinePoint]

        static let shared = Eighths()

        private init() {
            var bases = [Secp256k1.JacobianPoint(.generator)]
            for _ in 1..<8 { bases.append(bases[bases.count - 1].doubled(times: 32)) }
            points = Secp256k1.GeneratorTable.oddMultiples(of: bases, count: Self.perTable)
        }

        /// The odd multiples of 2^(32j)·G.
        func table(_ j: Int) -> ArraySlice<Secp256k1.AffinePoint> {
            points[j * Self.perTable..<(j + 1) * Self.perTable]
        }
    }
}
