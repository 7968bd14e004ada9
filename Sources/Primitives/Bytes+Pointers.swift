extension Array where Element == UInt8 {
    /// Like `withUnsafeBufferPointer`, but never hands C a null pointer for an empty array: some
    /// OpenSSL and libsodium calls reject NULL even with a zero length.
    func withNonNullBuffer<R, E: Error>(
        _ body: (UnsafePointer<UInt8>, Int) throws(E) -> R
    ) throws(E) -> R {
        if isEmpty {
            var placeholder: UInt8 = 0
            return try body(&placeholder, 0)
        }
        let result: Result<R, E> = withUnsafeBufferPointer { buffer in
            do throws(E) { return .success(try body(buffer.baseAddress!, buffer.count)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
