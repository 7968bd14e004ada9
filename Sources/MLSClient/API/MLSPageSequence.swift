import Lexicon

/// Pages of a cursor-paginated list: each step fetches with the previous page's cursor and ends
/// when the service returns none (API.md, Conventions: opaque `cursor`, `limit` 1–100).
public struct MLSPageSequence<Page: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Page
    public typealias Failure = MLSAPIError
    public typealias Fetch = @Sendable (_ cursor: String?) async throws(MLSAPIError) -> (page: Page, next: String?)

    let first: String?
    let fetch: Fetch

    public init(startingAt cursor: String? = nil, fetch: @escaping Fetch) {
        first = cursor
        self.fetch = fetch
    }

    public func makeAsyncIterator() -> Iterator { Iterator(cursor: first, fetch: fetch) }

    public struct Iterator: AsyncIteratorProtocol {
        var cursor: String?
        var finished = false
        let fetch: Fetch

        public mutating func next() async throws(MLSAPIError) -> Page? {
            guard !finished else { return nil }
            let (page, next) = try await fetch(cursor)
            // A cursor that does not move would loop for ever.
            finished = next == nil || next == cursor
            cursor = next
            return page
        }
    }
}

extension MLSAPIClient {
    /// The caller's conversations, page by page.
    public func convoPages(limit: Int? = nil) -> MLSPageSequence<[ConvoView]> {
        MLSPageSequence { [self] cursor throws(MLSAPIError) in
            let output = try await getConvos(limit: limit, cursor: cursor)
            return (output.conversations, output.cursor)
        }
    }

    /// Every conversation of the caller.
    public func allConvos(pageSize: Int? = nil) async throws(MLSAPIError) -> [ConvoView] {
        var all: [ConvoView] = []
        var iterator = convoPages(limit: pageSize).makeAsyncIterator()
        while let page = try await iterator.next() { all += page }
        return all
    }

    /// Messages after `sinceSeq`, page by page; the cursor is the next `sinceSeq`.
    public func messagePages(convoId: String, sinceSeq: Int64 = 0, limit: Int? = nil,
                             type: MessageTypeFilter? = nil) -> MLSPageSequence<[MessageView]> {
        MLSPageSequence(startingAt: String(sinceSeq)) { [self] cursor throws(MLSAPIError) in
            let since = cursor.flatMap { Int64($0) } ?? sinceSeq
            let output = try await getMessages(convoId: convoId, sinceSeq: since, limit: limit, type: type)
            return (output.messages, output.cursor)
        }
    }

    /// Every message after `sinceSeq`, in seq order.
    public func allMessages(convoId: String, sinceSeq: Int64 = 0, pageSize: Int? = nil,
                            type: MessageTypeFilter? = nil) async throws(MLSAPIError) -> [MessageView] {
        var all: [MessageView] = []
        var iterator = messagePages(convoId: convoId, sinceSeq: sinceSeq, limit: pageSize, type: type).makeAsyncIterator()
        while let page = try await iterator.next() { all += page }
        return all
    }
}
