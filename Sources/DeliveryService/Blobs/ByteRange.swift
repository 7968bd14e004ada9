/// A `Range` request header resolved against a representation of `size` bytes (RFC 9110 §14).
/// One range only: a header this service does not serve as a single range is ignored (the
/// whole content is sent), as §14.2 allows.
enum ByteRange: Equatable {
    /// No usable Range header: 200 with everything.
    case whole
    /// 206 with `length` bytes from `offset`.
    case partial(offset: Int, length: Int)
    /// 416: a well-formed range that starts past the end (or an empty suffix).
    case unsatisfiable

    /// At most this many characters of a Range header are looked at; longer ones are ignored.
    static let maxHeaderLength = 200

    static func resolve(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.utf8.count <= maxHeaderLength, size >= 0 else { return .whole }
        let text = header.trimmingWhitespace
        // §14.1.1: the unit is case-insensitive; a range set with several ranges is not served.
        guard text.utf8.count > 6, text.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = String(text.dropFirst(6)).trimmingWhitespace
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = String(spec[..<dash]).trimmingWhitespace
        let last = String(spec[spec.index(after: dash)...]).trimmingWhitespace
        if first.isEmpty {
            // suffix-range = "-" suffix-length: the last N bytes.
            guard let suffix = digits(last) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            let length = min(suffix, size)
            return .partial(offset: size - length, length: length)
        }
        guard let start = digits(first) else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard let value = digits(last) else { return .whole }
            // last < first makes the range invalid, so the header is ignored.
            guard value >= start else { return .whole }
            end = min(value, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(offset: start, length: end - start + 1)
    }

    /// 1*DIGIT as a non-negative Int, saturating at Int.max; nil if not all digits.
    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for c in text.utf8 {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(c - 0x30))
            if overflow1 || overflow2 { return Int.max }
            value = sum
        }
        return value
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let c = scalars.first, c == " " || c == "\t" { scalars.removeFirst() }
        while let c = scalars.last, c == " " || c == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
