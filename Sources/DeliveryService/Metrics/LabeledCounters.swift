import Synchronization

/// Counters by one label whose values come from code (error names), never from requests. A cap
/// keeps the series count bounded even so: names past it are counted under `other`.
public final class LabeledCounters: Sendable {
    private let counters: Mutex<[String: Counter]>
    private let other = Counter()
    private let maxLabels: Int

    public init(known: [String] = [], maxLabels: Int = 64) {
        counters = Mutex(Dictionary(uniqueKeysWithValues: known.map { ($0, Counter()) }))
        self.maxLabels = maxLabels
    }

    public func increment(_ label: String) {
        let counter = counters.withLock { table -> Counter in
            if let counter = table[label] { return counter }
            guard table.count < maxLabels, LabeledCounters.isSafeLabel(label) else { return other }
            let counter = Counter()
            table[label] = counter
            return counter
        }
        counter.increment()
    }

    public func value(_ label: String) -> UInt64 { counters.withLock { $0[label]?.value } ?? 0 }

    /// Every label with its count, sorted; `other` last when used.
    public var snapshot: [(label: String, value: UInt64)] {
        var rows = counters.withLock { $0.map { (label: $0.key, value: $0.value.value) } }.sorted { $0.label < $1.label }
        if other.value > 0 { rows.append((label: "other", value: other.value)) }
        return rows
    }

    /// Error names are identifiers; anything else is not a label value we emit.
    static func isSafeLabel(_ label: String) -> Bool {
        !label.isEmpty && label.utf8.count <= 64 && label.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x5f || $0 == 0x2e
        }
    }
}
