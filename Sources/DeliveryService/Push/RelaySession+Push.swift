/// An MQTT Session is the live subscription of the device whose id is its Client Identifier
/// (docs/push.md): while attached, that device is not pushed for the groups the Session follows.
extension RelaySession {
    var pushDeviceID: String? { identity.clientID }
}
