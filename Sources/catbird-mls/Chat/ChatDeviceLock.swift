import Foundation
import MLSClient
#if canImport(Glibc)
import Glibc
#endif

/// One command at a time per device: commands that save the device's state hold `flock` on
/// DIR/chat/NAME/lock, so two runs cannot each save over what the other did.
final class ChatDeviceLock {
    private let descriptor: Int32

    /// Creates the device's folder (0700) if needed and waits for the lock.
    init(folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        descriptor = open(folder.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw MLSClientError.storage("cannot open \(folder.path)/lock") }
        guard flock(descriptor, LOCK_EX) == 0 else {
            close(descriptor)
            throw MLSClientError.storage("cannot lock \(folder.path)/lock")
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
