import Basics
import Foundation

/// An uploaded attachment's row (table `blobs`): the bytes themselves live on disk, named by
/// `sha256`, outside the database.
public struct StoredBlob: Sendable, Equatable {
    /// 26 lowercase base32 characters (128 random bits).
    public var blobID: String
    public var sha256: [UInt8]
    public var size: Int64
    public var ownerDID: String
    public var convoID: String
    public var mimeType: String
    public var createdAt: Date

    public init(blobID: String, sha256: [UInt8], size: Int64, ownerDID: String, convoID: String,
                mimeType: String, createdAt: Date) {
        self.blobID = blobID
        self.sha256 = sha256
        self.size = size
        self.ownerDID = ownerDID
        self.convoID = convoID
        self.mimeType = mimeType
        self.createdAt = createdAt
    }
}

/// What `insertBlob` records for a finished upload.
public struct NewBlob: Sendable, Equatable {
    public var blobID: String
    public var sha256: [UInt8]
    public var size: Int64
    public var ownerDID: DID
    public var convoID: String
    public var mimeType: String

    public init(blobID: String, sha256: [UInt8], size: Int64, ownerDID: DID, convoID: String, mimeType: String) {
        self.blobID = blobID
        self.sha256 = sha256
        self.size = size
        self.ownerDID = ownerDID
        self.convoID = convoID
        self.mimeType = mimeType
    }
}
