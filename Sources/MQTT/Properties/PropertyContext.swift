/// Where a property list sits: each packet with Properties, plus the Will Properties of CONNECT
/// (MQTT 5.0 §2.2.2).
public enum PropertyContext: String, Sendable, CaseIterable {
    case connect = "CONNECT", connack = "CONNACK", publish = "PUBLISH", will = "Will Properties"
    case puback = "PUBACK", pubrec = "PUBREC", pubrel = "PUBREL", pubcomp = "PUBCOMP"
    case subscribe = "SUBSCRIBE", suback = "SUBACK", unsubscribe = "UNSUBSCRIBE", unsuback = "UNSUBACK"
    case disconnect = "DISCONNECT", auth = "AUTH"
}
