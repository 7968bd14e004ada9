import Foundation

/// The events bench's lines in `make bench`: the name column and figures as `summarise` in
/// scripts/bench.sh prints wrk's, then what was sent and who used the CPU.
struct EventsReport {
    let bench: EventsBench
    let outcome: EventsBench.Outcome
    /// The name column; by default the offered rate and the socket count.
    let label: String?

    func print() throws {
        let latencies = outcome.latencies
        guard !latencies.isEmpty else { throw BenchError.unexpected("no event arrived") }
        func percentile(_ fraction: Double) -> String {
            String(format: "%.2fms", latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))])
        }
        let name = label ?? "events \(Int(bench.rate)) msg/s, \(bench.subscribers) sockets"
        var first = name.padding(toLength: max(30, name.count), withPad: " ", startingAt: 0)
        first += String(format: " %9.0f ev/s    ", Double(latencies.count) / outcome.seconds)
        first += "p50 " + percentile(0.5).leftPadded(9) + "   p99 " + percentile(0.99).leftPadded(9)
        first += String(format: "   (sendMessage → event received; max %.1fms)", latencies.last!)
        Swift.print(first)

        var second = String(format: "  %d messages sent at %.0f/s", outcome.sent, outcome.sendRate)
        second += " (PrivateMessage \(outcome.ciphertextSize) B) to \(outcome.users) members × \(bench.socketsPerUser) sockets: "
        second += "\(latencies.count)/\(outcome.expected) events in " + String(format: "%.2f s", outcome.seconds)
        second += String(format: "; CPU: ds-bench %.0f%%", outcome.clientCPU * 100)
        if let server = outcome.serverCPU { second += String(format: ", server %.0f%%", server * 100) }
        if let box = outcome.boxCPU {
            second += String(format: ", box %.0f%% of %d00%%", box * 100, ProcessInfo.processInfo.activeProcessorCount)
        }
        Swift.print(second)
        if !outcome.failedSends.isEmpty {
            Swift.print("  \(outcome.failedSends.count) sendMessage calls failed, first: \(outcome.failedSends[0])")
        }
        if !outcome.closedSockets.isEmpty {
            Swift.print("  \(outcome.closedSockets.count) sockets closed early, codes \(Set(outcome.closedSockets).sorted())")
        }
    }
}

extension String {
    /// Right-aligned in `width` columns (the reports' figure columns).
    func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
