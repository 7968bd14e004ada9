extension ServiceConfiguration {
    /// MQTT.
    static let mqttVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "MQTT_PORT", .mqtt, default: .none("no MQTT listener"), example: "1883",
            meaning: "The MQTT 5.0 listener (the Relay protocol) on this port of `HOST` (`0`: ephemeral); TLS with "
                + "the same certificate when `TLS_CERT_FILE` and `TLS_KEY_FILE` are set.",
            guards: "An open port nobody asked for: off unless set."
        ) { value, config throws(ConfigurationError) in
            config.mqttPort = try value.integer(in: 0...65_535)
        },
    ]
}
