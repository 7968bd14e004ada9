/// The `type` filter of getMessages.
public enum MessageTypeFilter: String, Codable, Sendable {
    case app, commit, all
}
