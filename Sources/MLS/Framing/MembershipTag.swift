import Primitives

/// membership_tag = MAC(membership_key, AuthenticatedContentTBM) (RFC 9420 §6.2).
public enum MembershipTag {
    public static func compute(
        suite: CipherSuite, membershipKey: [UInt8], tbm: AuthenticatedContentTBM
    ) throws(FramingError) -> [UInt8] {
        do {
            return try suite.mac(key: membershipKey, data: tbm.encoded())
        } catch {
            throw .crypto(error)
        }
    }

    /// Compares in constant time so a forger learns nothing from timing.
    public static func verify(
        _ tag: [UInt8], suite: CipherSuite, membershipKey: [UInt8], tbm: AuthenticatedContentTBM
    ) throws(FramingError) {
        let expected = try compute(suite: suite, membershipKey: membershipKey, tbm: tbm)
        guard ConstantTime.equals(expected, tag) else { throw .invalidMembershipTag }
    }
}
