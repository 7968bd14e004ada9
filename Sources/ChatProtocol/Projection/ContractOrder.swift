/// The orders the contract requires of its arrays (CHAT.md §1.3): inputs are refused out of order,
/// never sorted, so that a signature covers exactly one spelling of each list.
enum ContractOrder {
    static func check(_ def: String, _ object: [String: ChatValue], path: String) throws(ChatInputError) {
        switch def {
        case "creationManifest", "resetActivationManifest":
            try ascendingByDID(object, "participants", path: path)
        case "policyTransitionBody":
            try ascendingByDID(object, "participantChanges", path: path)
        case "transitionManifest":
            try ascendingByDID(object, "participantChanges", path: path)
            try leafChangesAscending(object, path: path)
        case "deviceEnrollmentBody", "keyPackageReplenishmentBody":
            var previous: [UInt8]?
            for item in object["keyPackages"]?.array ?? [] {
                let ref = item["keyPackageRef"]?.bytes ?? []
                if let previous, !previous.lexicographicallyPrecedes(ref) {
                    throw ChatInputError(join(path, "keyPackages"), "must be strictly ascending by keyPackageRef")
                }
                previous = ref
            }
        case "conversationState":
            try ascendingByDID(object, "participants", path: path)
            var previous: (did: [UInt8], device: [UInt8])?
            for leaf in object["leaves"]?.array ?? [] {
                let current = (Array((leaf["userDid"]?.text ?? "").utf8), leaf["deviceId"]?.uuid?.bytes ?? [])
                if let previous, !precedes(previous.did, previous.device, 0, current.0, current.1, 0) {
                    throw ChatInputError(join(path, "leaves"), "must be strictly ascending by (userDid, deviceId)")
                }
                previous = current
            }
        default:
            break
        }
    }

    private static func ascendingByDID(_ object: [String: ChatValue], _ field: String, path: String) throws(ChatInputError) {
        var previous: [UInt8]?
        for item in object[field]?.array ?? [] {
            let did = Array((item["userDid"]?.text ?? "").utf8)
            if let previous, !previous.lexicographicallyPrecedes(did) {
                throw ChatInputError(join(path, field), "must be strictly ascending by userDid, each DID once")
            }
            previous = did
        }
    }

    /// (userDid bytes, deviceId bytes, removeLeaf before addLeafByRecovery), strictly ascending.
    private static func leafChangesAscending(_ object: [String: ChatValue], path: String) throws(ChatInputError) {
        var previous: ([UInt8], [UInt8], Int)?
        for change in object["leafChanges"]?.array ?? [] {
            let rank = change.type == ChatSchema.typePrefix + "removeLeaf" ? 0 : 1
            let current = (Array((change["userDid"]?.text ?? "").utf8), change["deviceId"]?.uuid?.bytes ?? [], rank)
            if let previous, !precedes(previous.0, previous.1, previous.2, current.0, current.1, current.2) {
                throw ChatInputError(join(path, "leafChanges"), "must be strictly ascending by (userDid, deviceId, remove before add)")
            }
            previous = current
        }
    }

    private static func precedes(_ a0: [UInt8], _ a1: [UInt8], _ a2: Int, _ b0: [UInt8], _ b1: [UInt8], _ b2: Int) -> Bool {
        if a0 != b0 { return a0.lexicographicallyPrecedes(b0) }
        if a1 != b1 { return a1.lexicographicallyPrecedes(b1) }
        return a2 < b2
    }

    private static func join(_ path: String, _ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }
}
