/// RFC 9420 §16.8, RFC 9750 §5.1: a "last resort" KeyPackage may be used more than once, when its
/// owner has no other; draft-ietf-mls-extensions marks one with the empty `last_resort` extension.
extension KeyPackage {
    /// Whether the package carries the `last_resort` KeyPackage extension; nil when it carries one
    /// whose data is not the empty `struct {}`.
    public var lastResortMark: Bool? {
        guard let mark = extensions.first(ofType: .lastResort) else { return false }
        return mark.extensionData.isEmpty ? true : nil
    }
}
