import ATProto
import Basics
import ChatProtocol
import Dispatch
import Synchronization

/// The chat contract's relationship rules (docs/chat.md, "Consent and relationships") as a value:
/// over the records `RelationshipResolver` holds, a check says what it still needs, or decides.
///
/// - Blocks: an `app.bsky.graph.block` record of either account naming the other refuses
///   (`BlockedRelationship`), for every unordered pair of a new roster (`.roster`) or between one
///   account and each of the others (`.actor`).
/// - Consent, for each invitee of `inviter`: the invitee's `blue.catbird.chat.policy` (`ChatPolicy`)
///   for a direct conversation or a group invitation; `none` refuses (`MessagesDisabled`),
///   `following` without the invitee's follow of the inviter `NotFollowedByRecipient`.
///
/// A record that could not be read, or a listing cut at its cap that might hide the answer, leaves
/// the check `unavailable`; a refusal the records already prove is given whatever else is missing.
struct ChatConsent: Sendable {
    typealias Key = RelationshipResolver.Key

    enum Verdict: Sendable, Equatable {
        case allowed
        case refused(ChatErrorCode)
        /// Read these first.
        case needs(Set<Key>)
        case unavailable
    }

    enum BlockScope: Sendable {
        /// Every unordered pair of these accounts.
        case roster([DID])
        /// The actor and each of the others.
        case actor(DID, others: [DID])
        /// Each newcomer and every other account of the roster (the newcomers included): an
        /// invitation to a group, where the participants already there are not checked anew.
        case newcomers([DID], joining: [DID])

        /// The accounts whose blocks are read: none when there is no pair.
        var members: [DID] {
            let all: [DID]
            switch self {
            case .roster(let members): all = members
            case .actor(let actor, let others): all = [actor] + others
            case .newcomers(let newcomers, let roster): all = newcomers + roster
            }
            return all.filter { !counterparts(of: $0).isEmpty }
        }

        /// Whom `member`'s blocks are checked against.
        func counterparts(of member: DID) -> [DID] {
            switch self {
            case .roster(let members): members.filter { $0 != member }
            case .actor(let actor, let others): member == actor ? others.filter { $0 != actor } : [actor]
            case .newcomers(let newcomers, let roster):
                newcomers.contains(member) ? (roster + newcomers).filter { $0 != member } : newcomers.filter { $0 != member }
            }
        }
    }

    let blocks: BlockScope
    /// The accounts whose consent `inviter` needs, and whether to a group.
    var inviter: DID?
    var invitees: [DID] = []
    var group = false

    /// A check of blocks only.
    init(blocks: BlockScope) {
        self.blocks = blocks
    }

    /// createConversation: blocks among the whole roster, and each invitee's consent.
    init(roster: [DID], inviter: DID, invitees: [DID], group: Bool) {
        blocks = .roster(roster)
        self.inviter = inviter
        self.invitees = invitees
        self.group = group
    }

    func verdict(_ lookup: (Key) -> RelationshipResolver.State) -> Verdict {
        var needs: Set<Key> = []
        var unknown = false
        func subjects(_ key: Key) -> RepoRecordReader.Subjects? {
            switch lookup(key) {
            case .value(.subjects(let subjects)): return subjects
            case .missing: needs.insert(key)
            case .unavailable, .value(.policy): unknown = true
            }
            return nil
        }

        for member in Set(blocks.members) {
            guard let blocked = subjects(Key(did: member, kind: .blocks)) else { continue }
            if blocks.counterparts(of: member).contains(where: { blocked.dids.contains($0.rawValue) }) {
                return .refused(.blockedRelationship)
            }
            if !blocked.complete { unknown = true }
        }

        var refusal: ChatErrorCode?
        if let inviter {
            for invitee in invitees where invitee != inviter {
                let policyKey = Key(did: invitee, kind: .policy)
                let policy: ChatPolicy
                switch lookup(policyKey) {
                case .value(.policy(let read)): policy = read
                case .missing: needs.insert(policyKey); continue
                case .unavailable, .value(.subjects): unknown = true; continue
                }
                let wanted = policy.needsFollows(group: group)
                var inviteeFollows: Bool?, inviterFollows: Bool?
                var complete = true
                if wanted.recipients {
                    if let follows = subjects(Key(did: invitee, kind: .follows)) {
                        inviteeFollows = follows.dids.contains(inviter.rawValue) ? true : (follows.complete ? false : nil)
                    } else { complete = false }
                }
                if wanted.senders {
                    if let follows = subjects(Key(did: inviter, kind: .follows)) {
                        inviterFollows = follows.dids.contains(invitee.rawValue) ? true : (follows.complete ? false : nil)
                    } else { complete = false }
                }
                guard complete else { continue }
                switch policy.refusal(group: group, recipientFollowsSender: inviteeFollows, senderFollowsRecipient: inviterFollows) {
                case nil: break
                case .refused(let code)?: refusal = refusal ?? code
                case .unknown?: unknown = true
                }
            }
        }
        if !needs.isEmpty { return .needs(needs) }
        if unknown { return .unavailable }
        return refusal.map { .refused($0) } ?? .allowed
    }
}

extension RelationshipResolver {
    /// Decides `check` for an admission, reading what it needs first, and hands the verdict to
    /// `then` once, from another thread (or this one, when nothing had to be read), at the latest
    /// `settings.timeout` seconds from now (`unavailable` then). No thread waits for the reads.
    func decide(_ check: ChatConsent, then: @escaping @Sendable (ChatConsent.Verdict) -> Void) {
        let first = check.verdict { state($0, for: .admission) }
        guard case .needs(let keys) = first else { return then(first) }
        let answered = Atomic<Bool>(false)
        let finish: @Sendable (ChatConsent.Verdict) -> Void = { verdict in
            if !answered.exchange(true, ordering: .acquiringAndReleasing) { then(verdict) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + settings.timeout) { finish(.unavailable) }
        round(check, reading: keys, asked: keys, finish: finish)
    }

    /// One round of reads; once they ended, the check again: decided, or more to read (a policy
    /// that needs follows). Keys asked for before and still missing could not be read in time.
    private func round(_ check: ChatConsent, reading keys: Set<ChatConsent.Key>, asked: Set<ChatConsent.Key>,
                       finish: @escaping @Sendable (ChatConsent.Verdict) -> Void) {
        fetch(keys) { [self] in
            let verdict = check.verdict { state($0, for: .admission) }
            guard case .needs(let more) = verdict else { return finish(verdict) }
            guard !more.isSubset(of: asked) else { return finish(.unavailable) }
            round(check, reading: more, asked: asked.union(more), finish: finish)
        }
    }

    /// Whether the cache already shows a block between `actor` and one of `others`, for sendMessage
    /// and publishTyping: never a read on their path (what is old or missing is refreshed behind the
    /// answer, and the answer is then "not blocked").
    func blockedFromCache(_ actor: DID, others: [DID]) -> Bool {
        ChatConsent(blocks: .actor(actor, others: others)).verdict { state($0, for: .traffic) } == .refused(.blockedRelationship)
    }
}
