#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Clocks of the events bench: monotonic stamps for latencies, and CPU time of this process, of
/// another process (the server) and of the whole box, to say how much of the 2 cores each used.
enum ProcessClock {
    /// Nanoseconds on the monotonic clock (the send and receive stamps).
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// CPU seconds (user + system) this process has used so far.
    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// CPU seconds process `pid` has used (utime + stime of /proc/<pid>/stat, proc(5)); nil if gone.
    static func cpuSeconds(ofProcess pid: Int) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// (busy, total) CPU seconds of the whole box since boot, summed over cores (/proc/stat).
    static func boxCPUSeconds() -> (busy: Double, total: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 5 else { return nil }
        // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
        let total = values.prefix(8).reduce(0, +)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((total - values[3] - values[4]) / ticks, total / ticks)
    }
}
