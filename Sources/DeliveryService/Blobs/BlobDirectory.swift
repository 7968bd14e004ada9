import Basics
import Foundation
import Primitives

/// The attachment files under BLOB_DIR. Each distinct content is one file named by its SHA-256
/// in two levels of fan-out (`ab/cd/abcd…`), so identical uploads share a file; uploads are
/// written under `tmp/` in the same tree first, so the final rename is atomic.
///
/// Which files are in use is the database's business (`blobs.sha256`): the store's content lock
/// orders placing and removing one hash's file (see `DeliveryStore.withContentLock`).
struct BlobDirectory: Sendable {
    let root: String

    var temporaryDirectory: String { root + "/tmp" }

    /// Creates the root (and its parents) and `tmp/` if missing.
    init(root: String) throws {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// Where the content with this hash lives.
    func path(for sha256: [UInt8]) -> String {
        let hex = Hex.encode(sha256)
        return "\(root)/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
    }

    /// A new, empty temporary file for an upload.
    func startUpload() throws(BlobFileError) -> BlobUpload {
        let path = temporaryDirectory + "/upload-" + Hex.encode(SecureRandom.bytes(16))
        return BlobUpload(path: path, file: try BlobFile.createExclusive(path))
    }

    /// Moves a finished upload to its content path (replacing an identical file, if any) and
    /// makes the rename durable. Run again after the upload was placed (a retried transaction),
    /// it only checks the file is still there.
    func place(_ upload: BlobUpload, sha256: [UInt8]) throws(BlobFileError) {
        let destination = path(for: sha256)
        if upload.placed {
            guard BlobFile.isRegularFile(destination) else { throw BlobFileError(operation: "place", code: ENOENT) }
            return
        }
        let first = (destination as NSString).deletingLastPathComponent
        let outer = (first as NSString).deletingLastPathComponent
        // A directory made now must itself be recorded in its parent before the file counts.
        if try BlobFile.makeDirectory(outer) { try BlobFile.syncDirectory(root) }
        if try BlobFile.makeDirectory(first) { try BlobFile.syncDirectory(outer) }
        try BlobFile.rename(upload.path, to: destination)
        upload.placed = true
        try BlobFile.syncDirectory(first)
    }

    /// Deletes the content file (absent is fine) and makes the removal durable.
    func removeContent(sha256: [UInt8]) throws(BlobFileError) {
        let file = path(for: sha256)
        try BlobFile.remove(file)
        try? BlobFile.syncDirectory((file as NSString).deletingLastPathComponent)
    }

    /// Content files last modified before `cutoff`, by hash (candidates for the orphan sweep).
    func contentFiles(modifiedBefore cutoff: Date) -> [[UInt8]] {
        var hashes: [[UInt8]] = []
        for outer in subdirectories(of: root) {
            for inner in subdirectories(of: root + "/" + outer) {
                let directory = "\(root)/\(outer)/\(inner)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                    guard name.utf8.count == 64, name.hasPrefix(outer + inner), let hash = Hex.decode(name),
                          modified(directory + "/" + name, before: cutoff) else { continue }
                    hashes.append(hash)
                }
            }
        }
        return hashes
    }

    /// Temporary files not written to since `cutoff`: uploads a crash or a lost error path left behind.
    func staleTemporaryFiles(modifiedBefore cutoff: Date) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? [])
            .map { temporaryDirectory + "/" + $0 }
            .filter { modified($0, before: cutoff) }
    }

    /// The two-hex-digit fan-out directories in `directory`.
    private func subdirectories(of directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.utf8.count == 2 && Hex.decode($0) != nil && $0 == $0.lowercased()
        }
    }

    private func modified(_ path: String, before cutoff: Date) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let date = attributes[.modificationDate] as? Date else { return false }
        return date < cutoff
    }
}

/// An upload being written to its temporary file: each piece is hashed as it is written, so the
/// body is never held whole. Used by one thread.
final class BlobUpload {
    let path: String
    private let file: BlobFile
    private let hash = IncrementalHash(.sha256)
    private(set) var size = 0
    /// Set once the file was renamed to its content path.
    fileprivate(set) var placed = false

    fileprivate init(path: String, file: BlobFile) {
        self.path = path
        self.file = file
    }

    func append(_ piece: [UInt8]) throws(BlobFileError) {
        hash.update(piece)
        try file.write(piece)
        size += piece.count
    }

    /// Flushes the file to disk and closes it; returns the content's SHA-256.
    func finish() throws(BlobFileError) -> [UInt8] {
        try file.sync()
        file.close()
        return hash.finalize()
    }

    /// Closes and deletes the temporary file, unless it was placed.
    func discard() {
        file.close()
        if !placed { try? BlobFile.remove(path) }
    }
}
