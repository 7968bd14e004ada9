/// Why a string is not a valid Topic Name or Topic Filter (MQTT 5.0 §4.7).
public enum TopicError: Error, Equatable, Sendable {
    // MQTT 5.0 §4.7.3 [MQTT-4.7.3-1]: at least one character.
    case empty
    // MQTT 5.0 §4.7.3 [MQTT-4.7.3-3]: at most 65,535 bytes.
    case tooLong(Int)
    // MQTT 5.0 §4.7.3 [MQTT-4.7.3-2].
    case containsNull
    // MQTT 5.0 §4.7.1 [MQTT-4.7.0-1]: no wildcards in a Topic Name.
    case wildcardInTopicName
    // MQTT 5.0 §4.7.1.2 [MQTT-4.7.1-1]: '#' alone in the last level.
    case misplacedMultiLevelWildcard
    // MQTT 5.0 §4.7.1.3 [MQTT-4.7.1-2]: '+' occupies a whole level.
    case misplacedSingleLevelWildcard
    // MQTT 5.0 §4.8.2 [MQTT-4.8.2-1], [MQTT-4.8.2-2]: $share/{ShareName}/{filter}.
    case invalidSharedSubscription
}
