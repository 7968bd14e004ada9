import Basics

/// Delivers pushes to one platform's push service. `send` never blocks: the outcome comes to
/// `completion` exactly once, on another thread, within the sender's request timeout.
public protocol PushSender: Sendable {
    var platform: PushPlatform { get }
    func send(_ notification: PushNotification, to address: PushAddress, completion: @escaping @Sendable (PushOutcome) -> Void)
    /// Stops taking pushes; those under way complete first.
    func shutdown()
}
