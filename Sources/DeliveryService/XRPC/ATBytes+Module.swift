import ATProto

/// The AT Protocol data model's `$bytes` (module ATProto), named here so method files need not
/// import ATProto for it.
typealias ATBytes = ATProto.ATBytes
