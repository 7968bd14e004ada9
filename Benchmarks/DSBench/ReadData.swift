import Foundation

/// The read load: pre-minted GET requests, one line `<path?query> <token>` each (tokens are
/// single-use), for getMessages (100 messages after a seq in the hot conversation, which the
/// one-conversation send run fills) and getConvos (each sender is in every bench conversation).
enum ReadData {
    static let getMessages = "blue.catbird.mls.getMessages"
    static let getConvos = "blue.catbird.mls.getConvos"

    /// `sinceSeq` cycles over the first `window` seqs, so every page is a full 100 once the hot
    /// conversation holds `window + 100` messages.
    static let window = 500

    static func write(_ conversations: SendMessageData.Conversations, audience: String, count: Int,
                      messagesTo messagesPath: String, convosTo convosPath: String) throws {
        let users = conversations.users
        let hot = conversations.convoIDs[0]
        let messages = try Parallel.map(count) { index in
            let user = users[index % users.count]
            let query = "convoId=\(hot)&sinceSeq=\((index * 7) % window)&limit=100"
            return "/xrpc/\(getMessages)?\(query) \(try user.token(audience: audience, nsid: getMessages))\n"
        }
        try Data(messages.joined().utf8).write(to: URL(fileURLWithPath: messagesPath))
        let convos = try Parallel.map(count) { index in
            let user = users[index % users.count]
            return "/xrpc/\(getConvos)?limit=50 \(try user.token(audience: audience, nsid: getConvos))\n"
        }
        try Data(convos.joined().utf8).write(to: URL(fileURLWithPath: convosPath))
    }
}
