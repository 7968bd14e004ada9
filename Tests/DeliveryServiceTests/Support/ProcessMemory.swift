import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resident memory and CPU time of a process from /proc, for the memory-bound tests. Tests that run
/// the server in-process measure themselves: `measure` resets the peak (VmHWM) first, so the peak
/// it reports is the one the measured call reached, whatever earlier tests did.
enum ProcessMemory {
    /// kB figures from /proc/<pid>/status: `VmRSS` now, `VmHWM` the peak since start or the last reset.
    static func status(of pid: String = "self") throws -> (rss: Int, peak: Int) {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    static func status(of pid: Int32) throws -> (rss: Int, peak: Int) { try status(of: String(pid)) }

    /// Resets this process's VmHWM to its current VmRSS (proc(5), clear_refs "5").
    static func resetPeak() throws {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// User plus system CPU seconds this process has used.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// What one call cost this process: the growth of the peak resident set over the resident set
    /// before it (kB), and CPU seconds.
    struct Cost: CustomStringConvertible {
        var peakGrowthKB: Int
        var cpuSeconds: Double
        var description: String { String(format: "peak RSS +%d kB, %.3f s CPU", peakGrowthKB, cpuSeconds) }
    }

    static func measure<T>(_ body: () throws -> T) throws -> (T, Cost) {
        try resetPeak()
        let before = try status()
        let cpu = cpuSeconds()
        let result = try body()
        let cost = Cost(peakGrowthKB: try status().peak - before.rss, cpuSeconds: cpuSeconds() - cpu)
        return (result, cost)
    }
}
