import AudioIO
import Degradation
import DSP
import Fingerprinting
import Foundation

/// CPU seconds used by the calling thread.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The process's peak resident memory in bytes.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Chromaprint's `fpcalc` timed on the same files, one process at a time: the peer for indexing speed.
public struct PeerTiming: Sendable, Codable, Equatable {
    public var command: String
    public var files: Int
    public var audioSeconds: Double
    /// CPU seconds of each `fpcalc` process (user + system, start-up included).
    public var cpuSeconds: [Double]
    /// Peak resident memory of each `fpcalc` process, in bytes.
    public var peakResidentBytes: [Int]?
    public var failure: String?

    public var audioSecondsPerCPUSecond: Double? {
        let total = cpuSeconds.reduce(0, +)
        return total > 0 ? audioSeconds / total : nil
    }

    /// Runs `fpcalc -raw -length 0` on each file (nil when it is not installed).
    public static func fpcalc(_ paths: [String]) -> PeerTiming? {
        guard let executable = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map({ "\($0)/fpcalc" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        var timing = PeerTiming(command: "fpcalc -raw -length 0 FILE", files: 0, audioSeconds: 0, cpuSeconds: [], peakResidentBytes: [])
        for path in paths {
            let child: ChildRun
            do { child = try ChildRun.run(executable, ["-raw", "-length", "0", path]) } catch { timing.failure = "\(error)"; return timing }
            // fpcalc exits 3 when its decoder reports an error at the very end of some Ogg files, after
            // printing the whole fingerprint; that still counts as fingerprinted.
            guard child.status == 0 || String(decoding: child.output, as: UTF8.self).contains("FINGERPRINT=") else {
                timing.failure = "fpcalc exited with \(child.status) on \(path)"
                return timing
            }
            timing.cpuSeconds.append(child.cpuSeconds)
            timing.peakResidentBytes?.append(child.peakResidentBytes)
            timing.audioSeconds += (try? AudioReader.duration(path)) ?? 0
            timing.files += 1
        }
        return timing
    }

    /// The median over files of the peer's CPU time over ours (above 1, ours is faster); files where
    /// either time is missing (0 or not finite) are left out; nil when none is left.
    public static func medianRatio(peer: [Double], ours: [Double]) -> Double? {
        let ratios = zip(peer, ours).filter { $0 > 0 && $1 > 0 && $0.isFinite && $1.isFinite }.map { $0 / $1 }.sorted()
        return ratios.isEmpty ? nil : ratios[ratios.count / 2]
    }
}

/// CPU seconds (user + system) used by `who`: this process (RUSAGE_SELF) or its finished children.
public func processCPUSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
