import ATProto
import ChatProtocol

/// An account's `blue.catbird.chat.policy` record (rkey `self`, on its PDS): who may start a
/// conversation with it. `whoCanMessageMe` (defs `incomingConsentPolicy`: `all`, `none`,
/// `following`; the app's older `everyone`, `nobody` and `mutuals` are read as such),
/// `allowGroupInvites` for group invitations (when absent, `whoCanMessageMe` rules them), and the
/// follow bypasses: `allowFollowersBypass` lets the account's followers in, `allowFollowingBypass`
/// the accounts it follows, whatever the rest says. No record is `all`; a value the service cannot
/// read is `none` (the account said something, and strangers are not let in on a guess).
struct ChatPolicy: Sendable, Equatable {
    enum Audience: Sendable, Equatable {
        case all, none, following, mutuals

        init(_ field: RepoRecordReader.Field?) {
            switch field {
            case nil: self = .all
            case .string("all"), .string("everyone"): self = .all
            case .string("none"), .string("nobody"): self = .none
            case .string("following"): self = .following
            case .string("mutuals"): self = .mutuals
            default: self = .none
            }
        }
    }

    static let collection = "blue.catbird.chat.policy"
    static let recordKey = "self"

    var whoCanMessageMe: Audience
    var groupInvites: Audience?
    var allowFollowersBypass: Bool
    var allowFollowingBypass: Bool

    static let absent = ChatPolicy(whoCanMessageMe: .all, groupInvites: nil, allowFollowersBypass: false, allowFollowingBypass: false)

    init(whoCanMessageMe: Audience, groupInvites: Audience?, allowFollowersBypass: Bool, allowFollowingBypass: Bool) {
        self.whoCanMessageMe = whoCanMessageMe
        self.groupInvites = groupInvites
        self.allowFollowersBypass = allowFollowersBypass
        self.allowFollowingBypass = allowFollowingBypass
    }

    /// The record's value as getRecord returned it; nil: there is none.
    init(record: [String: RepoRecordReader.Field]?) {
        guard let record else {
            self = .absent
            return
        }
        whoCanMessageMe = Audience(record["whoCanMessageMe"])
        groupInvites = record["allowGroupInvites"].map { Audience($0) }
        allowFollowersBypass = record["allowFollowersBypass"] == .bool(true)
        allowFollowingBypass = record["allowFollowingBypass"] == .bool(true)
    }

    /// Who may invite the account: to a direct conversation, `whoCanMessageMe`; to a group, the
    /// group setting where the record has one.
    func audience(group: Bool) -> Audience {
        group ? groupInvites ?? whoCanMessageMe : whoCanMessageMe
    }

    /// Whose follows a decision about `sender` needs: the account's own (does it follow the
    /// sender?) and the sender's (does the sender follow it?).
    func needsFollows(group: Bool) -> (recipients: Bool, senders: Bool) {
        let audience = audience(group: group)
        guard audience != .all else { return (false, false) }
        return (audience == .following || audience == .mutuals || allowFollowingBypass,
                audience == .mutuals || allowFollowersBypass)
    }

    /// The verdict on `sender` (nil: allowed), knowing whether the account follows the sender and
    /// whether the sender follows it (nil where unknown: only asked for when `needsFollows` says so).
    func refusal(group: Bool, recipientFollowsSender: Bool?, senderFollowsRecipient: Bool?) -> ChatErrorCodeOrUnknown? {
        let audience = audience(group: group)
        if audience == .all { return nil }
        if allowFollowingBypass, recipientFollowsSender == true { return nil }
        if allowFollowersBypass, senderFollowsRecipient == true { return nil }
        switch audience {
        case .all: return nil
        case .following where recipientFollowsSender == true: return nil
        case .mutuals where recipientFollowsSender == true && senderFollowsRecipient == true: return nil
        default: break
        }
        // A follow the reader could not see (a listing cut at its cap) might have let the sender in.
        let unknown = (needsFollows(group: group).recipients && recipientFollowsSender == nil)
            || (needsFollows(group: group).senders && senderFollowsRecipient == nil)
        if unknown { return .unknown }
        return .refused(audience == .none ? .messagesDisabled : .notFollowedByRecipient)
    }
}

/// A verdict that may lack what it needs.
enum ChatErrorCodeOrUnknown: Equatable {
    case refused(ChatErrorCode)
    case unknown
}
