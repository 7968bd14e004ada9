import Foundation
import Synchronization

/// A server process the abuse bench watches: its resident memory (VmRSS of /proc/<pid>/status,
/// proc(5)) and the CPU it used.
struct ServerProcess: Sendable {
    let pid: Int

    /// Resident memory in KiB; nil once the process is gone.
    var rssKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    var cpuSeconds: Double? { ProcessClock.cpuSeconds(ofProcess: pid) }

    static func mebibytes(_ kib: Int?) -> String {
        kib.map { String(format: "%.0f MiB", Double($0) / 1024) } ?? "?"
    }
}

/// The largest RSS of a process, sampled every 20 ms on a thread of its own until `stop`.
final class PeakSampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    init(_ process: ServerProcess) {
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                if let rss = process.rssKiB, rss > peak.load(ordering: .relaxed) { peak.store(rss, ordering: .relaxed) }
                Thread.sleep(forTimeInterval: 0.02)
            }
            done.signal()
        }.start()
    }

    /// Stops sampling; the peak seen (KiB).
    func stop() -> Int {
        running.store(false, ordering: .relaxed)
        done.wait()
        return peak.load(ordering: .relaxed)
    }
}
