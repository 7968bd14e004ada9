/// Topic Aliases the client set on this connection (MQTT 5.0 §3.3.2.3.4); they never outlive it
/// [MQTT-3.3.2-7].
struct InboundTopicAliases: Sendable {
    /// The Topic Alias Maximum announced in CONNACK.
    let maximum: UInt16
    private var names: [UInt16: TopicName] = [:]

    init(maximum: UInt16) { self.maximum = maximum }

    enum Failure: Error, Equatable {
        /// 0 or above the maximum: 0x94 Topic Alias invalid (§3.3.4 step 1).
        case invalidAlias(UInt16)
        /// An empty Topic Name with an alias never set: 0x82 Protocol Error (§3.3.4 step 3a).
        case unknownAlias(UInt16)
        /// An empty Topic Name without an alias: 0x82 (§3.3.2.1).
        case missingTopic
        case invalidTopic(TopicError)
    }

    /// The Topic Name a PUBLISH is for, setting or using the alias (MQTT 5.0 §3.3.4).
    mutating func resolve(topicName: String, alias: UInt16?) throws(Failure) -> TopicName {
        guard let alias else {
            if topicName.isEmpty { throw .missingTopic }
            return try Self.name(topicName)
        }
        guard alias != 0, alias <= maximum else { throw .invalidAlias(alias) }
        if topicName.isEmpty {
            guard let known = names[alias] else { throw .unknownAlias(alias) }
            return known
        }
        let name = try Self.name(topicName)
        names[alias] = name
        return name
    }

    private static func name(_ value: String) throws(Failure) -> TopicName {
        do { return try TopicName(value) } catch { throw .invalidTopic(error) }
    }
}
