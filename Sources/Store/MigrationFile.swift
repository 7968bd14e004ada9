import Foundation

/// One `migrations/NNNN_name.sql` file: its version number and file name.
public struct MigrationFile: Sendable, Equatable {
    public let version: Int
    public let fileName: String
    public let url: URL

    /// Parses a file name. Returns nil for files that are not `.sql` (a README, say); throws for
    /// a `.sql` file whose name is not `NNNN_name.sql`, so a typo cannot skip a migration.
    public init?(url: URL) throws(StoreError) {
        let fileName = url.lastPathComponent
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        let digits = stem.prefix { $0.isASCII && $0.isNumber }
        let rest = stem.dropFirst(digits.count)
        guard digits.count >= 4, digits.count <= 9, let version = Int(digits),
              rest.first == "_", rest.count > 1,
              rest.dropFirst().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else {
            throw .migrationFailed(file: fileName, message: "migration files must be named NNNN_name.sql")
        }
        self.version = version
        self.fileName = fileName
        self.url = url
    }

    /// The `.sql` files of `directory`, in version order; duplicate versions are an error.
    static func list(in directory: URL) throws(StoreError) -> [MigrationFile] {
        let urls: [URL]
        do {
            urls = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        } catch {
            throw .migrationFailed(file: directory.path, message: "cannot list migrations: \(error.localizedDescription)")
        }
        var files: [MigrationFile] = []
        for url in urls {
            if let file = try MigrationFile(url: url) { files.append(file) }
        }
        files.sort { $0.version < $1.version }
        for (earlier, later) in zip(files, files.dropFirst()) where earlier.version == later.version {
            throw .migrationFailed(file: later.fileName, message: "version \(later.version) also used by \(earlier.fileName)")
        }
        return files
    }

    func contents() throws(StoreError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .migrationFailed(file: fileName, message: "cannot read: \(error.localizedDescription)")
        }
    }
}
