import Synchronization

extension Secp256k1 {
    /// Precomputation for a public key that verifies again and again (a caller's DID key, kept with
    /// its DID document): affine odd multiples of Q, λ·Q, 2^64·Q and 2^64·λ·Q. With them u2·Q runs
    /// as four 64-bit wNAF streams (the GLV halves, each split at bit 64), beside four for u1·G
    /// (`GeneratorTable.Quarters`): 64 doublings per verification instead of 128, and no table to
    /// build per verification. About 2 KB (`KeyTablesBudget`).
    struct KeyTables: Sendable {
        /// wNAF width of the key's streams: 2^(w−2) = 8 points per table.
        static let width = 5

        let q: [AffinePoint]
        let lambdaQ: [AffinePoint]
        let q64: [AffinePoint]
        let lambdaQ64: [AffinePoint]

        /// `point` must be a valid public key (on the curve, not infinity): no multiple below n is
        /// then infinity.
        init(_ point: AffinePoint) {
            let count = 1 << (Self.width - 2)
            q = GeneratorTable.oddMultiples(of: JacobianPoint(point), count: count)
            q64 = GeneratorTable.oddMultiples(of: JacobianPoint(point).doubled(times: 64), count: count)
            lambdaQ = q.map(\.lambdaImage)
            lambdaQ64 = q64.map(\.lambdaImage)
        }
    }

    /// How many keys in the process may hold `KeyTables` at once (about 2 KB each): a bound on
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
    /// Affine odd multiples of 2^64·G and 2^192·G: with `low` (G) and `high` (2^128·G), u1·G runs as
    /// four 64-bit streams for keys with `KeyTables`. Built on first use.
    struct Quarters: Sendable {
        let g64: [Secp256k1.AffinePoint]
        let g192: [Secp256k1.AffinePoint]

        static let shared = Quarters()

        private init() {
            let g64 = Secp256k1.JacobianPoint(.generator).doubled(times: 64)
            let g192 = g64.doubled(times: 128)
            let count = 1 << (Secp256k1.GeneratorTable.width - 2)
            self.g64 = Secp256k1.GeneratorTable.oddMultiples(of: g64, count: count)
            self.g192 = Secp256k1.GeneratorTable.oddMultiples(of: g192, count: count)
        }
    }
}
