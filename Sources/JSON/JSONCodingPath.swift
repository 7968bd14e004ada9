/// The keys leading to a value, as a linked list so that descending costs one small node and the
/// `[CodingKey]` array is only built when something asks for it (an error, usually).
enum JSONCodingPath {
    case root
    indirect case key(any CodingKey, JSONCodingPath)
    indirect case index(Int, JSONCodingPath)

    var keys: [any CodingKey] {
        var reversed: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root: return reversed.reversed()
            case .key(let key, let parent): reversed.append(key); node = parent
            case .index(let index, let parent): reversed.append(JSONIndexKey(index)); node = parent
            }
        }
    }
}

/// An array position in a coding path (rendered `[n]` by XRPC error messages through `intValue`).
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}
