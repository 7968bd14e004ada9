import Basics
import Foundation
import Synchronization

/// What a Relay client publishes ahead of the commit it belongs to, held on the node its connection
/// is on (the client publishes all of it on that connection, in this order):
/// - the Welcome on `relay/w/{client_id}` before the commit that adds the client (Relay §8.1, §8.6);
///   the commit is validated with it, as addMembers is with its `welcomeMessage`;
/// - the GroupInfo of the epoch a commit creates, on `relay/g/{group_id}/i` before that commit:
///   for an unknown group (Relay §8.1: GroupInfo, then commit) it makes the pair createConvo needs.
/// Nothing held is delivered to anyone: only an accepted commit releases it.
final class RelayPending: Sendable {
    struct HeldWelcome: Sendable, Equatable {
        var bytes: [UInt8]
        /// The KeyPackageRefs its secrets address.
        var refs: [[UInt8]]
        var at: Date
    }

    struct HeldGroupInfo: Sendable, Equatable {
        var convoID: String
        var epoch: Int64
        var bytes: [UInt8]
        var at: Date
    }

    /// GroupInfos wait this long for their commit (issue 19: up to 30 s).
    static let groupInfoLifetime: TimeInterval = 30
    static let welcomeLifetime: TimeInterval = 60
    static let maxWelcomesPerDID = 16
    static let maxGroupInfosPerDID = 8

    private struct State {
        var welcomes: [String: [HeldWelcome]] = [:]
        var groupInfos: [String: [HeldGroupInfo]] = [:]
        /// Held GroupInfos per conversation (to answer `holdsGroupInfo` without a scan).
        var groupInfoCounts: [String: Int] = [:]

        /// Replaces a DID's list of held GroupInfos, keeping the counts per conversation.
        mutating func setGroupInfos(_ list: [HeldGroupInfo], of did: String) {
            for held in groupInfos[did] ?? [] {
                let left = groupInfoCounts[held.convoID, default: 1] - 1
                groupInfoCounts[held.convoID] = left > 0 ? left : nil
            }
            for held in list { groupInfoCounts[held.convoID, default: 0] += 1 }
            groupInfos[did] = list.isEmpty ? nil : list
        }
    }

    private let state = Mutex(State())

    func holdWelcome(_ bytes: [UInt8], refs: [[UInt8]], from did: DID, now: Date = Date()) {
        state.withLock { state in
            var list = (state.welcomes[did.rawValue] ?? []).filter { now.timeIntervalSince($0.at) < Self.welcomeLifetime && $0.bytes != bytes }
            list.append(HeldWelcome(bytes: bytes, refs: refs, at: now))
            if list.count > Self.maxWelcomesPerDID { list.removeFirst(list.count - Self.maxWelcomesPerDID) }
            state.welcomes[did.rawValue] = list
        }
    }

    /// The held Welcome from `did` addressing exactly `refs`; with no refs given (a sealed commit,
    /// whose Adds are encrypted), the newest one.
    func welcome(from did: DID, addressing refs: Set<[UInt8]>?, now: Date = Date()) -> HeldWelcome? {
        state.withLock { state in
            let list = (state.welcomes[did.rawValue] ?? []).filter { now.timeIntervalSince($0.at) < Self.welcomeLifetime }
            guard let refs else { return list.last }
            return list.last { Set($0.refs) == refs }
        }
    }

    func dropWelcome(_ welcome: HeldWelcome, from did: DID) {
        state.withLock { state in state.welcomes[did.rawValue]?.removeAll { $0.bytes == welcome.bytes } }
    }

    func holdGroupInfo(_ held: HeldGroupInfo, from did: DID) {
        state.withLock { state in
            var list = (state.groupInfos[did.rawValue] ?? []).filter {
                held.at.timeIntervalSince($0.at) < Self.groupInfoLifetime && !($0.convoID == held.convoID && $0.epoch == held.epoch)
            }
            list.append(held)
            if list.count > Self.maxGroupInfosPerDID { list.removeFirst(list.count - Self.maxGroupInfosPerDID) }
            state.setGroupInfos(list, of: did.rawValue)
        }
    }

    /// The GroupInfo `did` published for the conversation's `epoch`, still within its 30 s.
    func groupInfo(from did: DID, convoID: String, epoch: Int64, now: Date = Date()) -> HeldGroupInfo? {
        state.withLock { state in
            (state.groupInfos[did.rawValue] ?? []).last {
                $0.convoID == convoID && $0.epoch == epoch && now.timeIntervalSince($0.at) < Self.groupInfoLifetime
            }
        }
    }

    /// The newest GroupInfo `did` holds for the conversation, whatever its epoch (for a conversation
    /// that does not exist yet: its creator's).
    func anyGroupInfo(from did: DID, convoID: String, now: Date = Date()) -> HeldGroupInfo? {
        state.withLock { state in
            (state.groupInfos[did.rawValue] ?? []).last { $0.convoID == convoID && now.timeIntervalSince($0.at) < Self.groupInfoLifetime }
        }
    }

    func dropGroupInfo(_ held: HeldGroupInfo, from did: DID) {
        state.withLock { state in state.setGroupInfos((state.groupInfos[did.rawValue] ?? []).filter { $0 != held }, of: did.rawValue) }
    }

    /// Whether any DID holds a GroupInfo for the conversation.
    func holdsGroupInfo(convoID: String) -> Bool {
        state.withLock { $0.groupInfoCounts[convoID] != nil }
    }

    /// Forgets the conversation's held GroupInfos of an epoch it has reached (their commit can no
    /// longer come), whoever holds them.
    func dropGroupInfos(convoID: String, throughEpoch epoch: Int64) {
        state.withLock { state in
            for (did, list) in state.groupInfos where list.contains(where: { $0.convoID == convoID && $0.epoch <= epoch }) {
                state.setGroupInfos(list.filter { !($0.convoID == convoID && $0.epoch <= epoch) }, of: did)
            }
        }
    }

    /// Forgets everything past its lifetime.
    func expire(now: Date = Date()) {
        state.withLock { state in
            for (did, list) in state.welcomes {
                let kept = list.filter { now.timeIntervalSince($0.at) < Self.welcomeLifetime }
                state.welcomes[did] = kept.isEmpty ? nil : kept
            }
            for (did, list) in state.groupInfos {
                state.setGroupInfos(list.filter { now.timeIntervalSince($0.at) < Self.groupInfoLifetime }, of: did)
            }
        }
    }
}
