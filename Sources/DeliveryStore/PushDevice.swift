import Basics
import Foundation

/// One device's push registration, validated by the caller: the device is `did#deviceID`.
public struct PushDeviceRegistration: Sendable, Equatable {
    public var did: DID
    public var deviceID: String
    public var address: PushAddress
    public var deviceName: String?

    public init(did: DID, deviceID: String, address: PushAddress, deviceName: String? = nil) {
        self.did = did
        self.deviceID = deviceID
        self.address = address
        self.deviceName = deviceName
    }
}

/// Where a claimed push goes: a device and its registration as it is now.
public struct PushTarget: Sendable, Equatable {
    public var did: String
    public var deviceID: String
    public var address: PushAddress

    public init(did: String, deviceID: String, address: PushAddress) {
        self.did = did
        self.deviceID = deviceID
        self.address = address
    }
}
