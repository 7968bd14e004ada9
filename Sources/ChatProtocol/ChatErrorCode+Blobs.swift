/// The error codes of the contract's blob methods (prepareBlobUpload, uploadBlob, getBlob,
/// deleteBlob) and of sendMessage's `blobBindings`.
extension ChatErrorCode {
    public static let blobAlreadyExists = Self(rawValue: "BlobAlreadyExists")
    public static let blobBindingConflict = Self(rawValue: "BlobBindingConflict")
    public static let blobBound = Self(rawValue: "BlobBound")
    public static let blobConflict = Self(rawValue: "BlobConflict")
    public static let blobHashMismatch = Self(rawValue: "BlobHashMismatch")
    public static let blobQuotaExceeded = Self(rawValue: "BlobQuotaExceeded")
    public static let blobSizeMismatch = Self(rawValue: "BlobSizeMismatch")
    public static let uploadTicketExpired = Self(rawValue: "UploadTicketExpired")
    public static let uploadTicketNotFound = Self(rawValue: "UploadTicketNotFound")
}
