import CSodium

/// Comparisons and wiping that do not leak secrets through timing or leftover memory.
public enum ConstantTime {
    /// True when both arrays hold the same bytes. Only the lengths (which are public) are compared
    /// in variable time.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        Sodium.ensureInitialized()
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// Overwrites the array's storage with zeros (`sodium_memzero`, which the compiler cannot elide).
    /// Copies made earlier are not affected.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }
}
