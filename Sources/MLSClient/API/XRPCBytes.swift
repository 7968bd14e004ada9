import ATProto
import Basics

/// Bytes in JSON as the AT Protocol data model writes them (`{"$bytes": …}`): the same type the
/// service uses, from module ATProto.
public typealias XRPCBytes = ATBytes
