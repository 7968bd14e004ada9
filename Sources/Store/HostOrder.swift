import Synchronization

/// The hosts of a multi-host connection string, in the order the next connection tries them.
///
/// libpq tries a URL's hosts in the order written (with `target_session_attrs=read-write`, until one
/// takes writes). After a failover the first of them may be a machine that no longer answers, and
/// then every new connection waits `connect_timeout` for it before trying the next. So the host that
/// took the last connection goes first, and one whose connection was lost goes last.
final class HostOrder: Sendable {
    let hosts: [String]
    /// One per host, or empty when the string gives none (libpq's default for every host).
    let ports: [String]
    /// One per host, or empty when the string gives none.
    let addresses: [String]
    /// Indices into the lists, in the order the next connection tries them.
    private let order: Mutex<[Int]>

    /// Nil unless the options name more than one host, with one port (or none, or one for all) and
    /// one `hostaddr` (or none) per host.
    init?(options: [(String, String)]) {
        func list(_ key: String) -> [String] {
            options.last { $0.0 == key }.map { $0.1.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        }
        let hosts = list("host"), addresses = list("hostaddr")
        var ports = list("port")
        let count = max(hosts.count, addresses.count)
        guard count > 1 else { return nil }
        if ports.count == 1 { ports = Array(repeating: ports[0], count: count) }
        guard hosts.isEmpty || hosts.count == count, addresses.isEmpty || addresses.count == count,
              ports.isEmpty || ports.count == count else { return nil }
        self.hosts = hosts
        self.ports = ports
        self.addresses = addresses
        order = Mutex(Array(0..<count))
    }

    /// `host`, `port` and `hostaddr` for the next connection, to follow the connection string's own
    /// options (later ones override); none while the written order stands.
    var parameters: [(String, String)] {
        let order = order.withLock { $0 }
        guard order != Array(order.indices) else { return [] }
        var parameters: [(String, String)] = []
        for (key, values) in [("host", hosts), ("port", ports), ("hostaddr", addresses)] where !values.isEmpty {
            parameters.append((key, order.map { values[$0] }.joined(separator: ",")))
        }
        return parameters
    }

    /// A connection was made to `host` (PQhost) on `port` (PQport): try that one first from now on.
    func connected(host: String, port: String) {
        move(host: host, port: port) { order, index in order.insert(index, at: 0) }
    }

    /// A connection to `host` on `port` was lost: try that one last from now on.
    func lost(host: String, port: String) {
        move(host: host, port: port) { order, index in order.append(index) }
    }

    private func move(host: String, port: String, _ place: (inout [Int], Int) -> Void) {
        let count = max(hosts.count, addresses.count)
        let matches = (0..<count).filter { index in
            let name = index < hosts.count ? hosts[index] : ""
            let address = index < addresses.count ? addresses[index] : ""
            return (name == host || address == host) && (ports.isEmpty || ports[index] == port)
        }
        // Two entries alike: no telling which one it was.
        guard matches.count == 1 else { return }
        order.withLock { order in
            order.removeAll { $0 == matches[0] }
            place(&order, matches[0])
        }
    }
}
