/// Quality of Service levels (MQTT 5.0 §4.3); 3 is never valid.
public enum QoS: UInt8, Sendable, Comparable, CaseIterable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2

    public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// MQTT 5.0 §3.3.2.3.2: unspecified bytes, or UTF-8 Encoded Character Data.
public enum PayloadFormat: UInt8, Sendable {
    case unspecified = 0
    case utf8 = 1
}
