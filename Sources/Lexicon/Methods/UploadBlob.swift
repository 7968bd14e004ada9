/// `blue.catbird.mls.uploadBlob` output (the input is the raw body).
public struct UploadBlobOutput: Codable, Sendable, Equatable {
    /// The stored attachment.
    public struct Blob: Codable, Sendable, Equatable {
        public var blobId: String
        public var size: Int64
        public var mimeType: String

        public init(blobId: String, size: Int64, mimeType: String) {
            self.blobId = blobId
            self.size = size
            self.mimeType = mimeType
        }
    }

    public var blob: Blob

    public init(blob: Blob) {
        self.blob = blob
    }
}
