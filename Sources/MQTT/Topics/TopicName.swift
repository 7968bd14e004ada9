/// A validated Topic Name (MQTT 5.0 §4.7): what a message is published to. Only `init` builds one,
/// so holding a `TopicName` means the §4.7 rules were checked.
public struct TopicName: Hashable, Sendable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) throws(TopicError) {
        try Self.checkCommonRules(value)
        // MQTT 5.0 §4.7.1 [MQTT-4.7.0-1]: wildcards may be used in Topic Filters, never in Topic Names.
        if value.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw .wildcardInTopicName
        }
        self.value = value
    }

    /// MQTT 5.0 §4.7.2: names beginning with '$' are not matched by filters starting with a wildcard.
    public var isDollarTopic: Bool { value.utf8.first == UInt8(ascii: "$") }

    /// MQTT 5.0 §4.7.1.1: levels split at '/', a leading, trailing or doubled '/' giving empty levels.
    public var levels: [Substring] { value.split(separator: "/", omittingEmptySubsequences: false) }

    public var description: String { value }

    // MQTT 5.0 §4.7.3: rules shared by Topic Names and Topic Filters.
    static func checkCommonRules(_ value: String) throws(TopicError) {
        let count = value.utf8.count
        if count == 0 { throw .empty }
        if count > 0xFFFF { throw .tooLong(count) }
        if value.utf8.contains(0) { throw .containsNull }
    }
}
