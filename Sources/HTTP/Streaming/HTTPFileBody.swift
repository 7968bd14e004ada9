#if canImport(Glibc)
import Glibc
#endif

/// A response body read from an open file: `length` bytes from `offset`, sent without loading
/// the file (sendfile on plain connections, 64 KiB reads under TLS). Owns the descriptor and
/// closes it when the response is done with it.
public final class HTTPFileBody: Sendable {
    public let descriptor: Int32
    public let offset: Int
    public let length: Int

    /// Takes ownership of `descriptor`.
    public init(descriptor: Int32, offset: Int = 0, length: Int) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }

    /// Opens `path` read-only; `length` nil means to the end of the file. Nil when the file cannot
    /// be opened or the range lies outside it.
    public static func open(path: String, offset: Int = 0, length: Int? = nil) -> HTTPFileBody? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            return nil
        }
        let size = Int(info.st_size)
        let count = length ?? (size - offset)
        guard offset >= 0, count >= 0, offset + count <= size else {
            Glibc.close(fd)
            return nil
        }
        return HTTPFileBody(descriptor: fd, offset: offset, length: count)
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Up to `maxCount` bytes at `position` (for TLS, which must encrypt in user space).
    func read(at position: Int, maxCount: Int) -> [UInt8]? {
        let result = [UInt8](unsafeUninitializedCapacity: maxCount) { buffer, initialized in
            let n = pread(descriptor, buffer.baseAddress, maxCount, off_t(position))
            initialized = Swift.max(0, n)
        }
        return result.isEmpty ? nil : result
    }
}
