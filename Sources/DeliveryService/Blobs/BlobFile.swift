#if canImport(Glibc)
import Glibc
#endif

/// A file-system call that failed, with its errno.
struct BlobFileError: Error, Sendable, Equatable, CustomStringConvertible {
    var operation: String
    var code: Int32

    var description: String { "\(operation) failed (errno \(code))" }
}

/// The POSIX calls the blob store needs and Foundation does not offer (exclusive create, fsync of
/// a file and of a directory, atomic rename): a thin wrapper, the only place they are made.
final class BlobFile {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    /// Creates `path`, which must not exist, for writing (mode 0600).
    static func createExclusive(_ path: String) throws(BlobFileError) -> BlobFile {
        let fd = retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw BlobFileError(operation: "open", code: errno) }
        return BlobFile(descriptor: fd)
    }

    /// Writes all of `bytes`, continuing after short writes.
    func write(_ bytes: [UInt8]) throws(BlobFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                retryingInterrupts { Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            guard written > 0 else { throw BlobFileError(operation: "write", code: written < 0 ? errno : EIO) }
            offset += written
        }
    }

    /// fsync(2): the data is on stable storage when this returns.
    func sync() throws(BlobFileError) {
        guard fsync(descriptor) == 0 else { throw BlobFileError(operation: "fsync", code: errno) }
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// fsync of a directory, so that entries created, renamed or removed in it are durable.
    static func syncDirectory(_ path: String) throws(BlobFileError) {
        let fd = retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw BlobFileError(operation: "open directory", code: errno) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw BlobFileError(operation: "fsync directory", code: errno) }
    }

    /// Creates the directory (mode 0700) unless it exists; true if it was created now.
    @discardableResult
    static func makeDirectory(_ path: String) throws(BlobFileError) -> Bool {
        if mkdir(path, 0o700) == 0 { return true }
        let code = errno
        guard code == EEXIST else { throw BlobFileError(operation: "mkdir", code: code) }
        return false
    }

    /// rename(2): atomically replaces `destination` (same file system).
    static func rename(_ source: String, to destination: String) throws(BlobFileError) {
        guard Glibc.rename(source, destination) == 0 else { throw BlobFileError(operation: "rename", code: errno) }
    }

    /// unlink(2); a file that is already gone counts as removed.
    static func remove(_ path: String) throws(BlobFileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw BlobFileError(operation: "unlink", code: errno) }
    }

    /// Whether `path` names a regular file.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    private func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T { Self.retryingInterrupts(call) }
}
