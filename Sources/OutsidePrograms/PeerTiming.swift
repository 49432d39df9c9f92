import AudioIO
import Foundation

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
        guard let executable = executablePath("fpcalc") else { return nil }
        var timing = PeerTiming(command: "fpcalc -raw -length 0 FILE", files: 0, audioSeconds: 0, cpuSeconds: [], peakResidentBytes: [])
        for path in paths {
            let child: ChildRun
            do { child = try ChildRun.run(executable, ["-raw", "-length", "0", path], timeout: ExternalCommand.defaultTimeoutSeconds) } catch { timing.failure = "\(error)"; return timing }
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

/// Where `program` runs from: itself when it is a path, else the first executable of that name on PATH; nil when none.
public func executablePath(_ program: String) -> String? {
    if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
    return (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Why `executablePath(program)` found nothing: "not found", or "exists but is not executable" (a file without
/// its execute bit, named or first on PATH).
public func notRunnable(_ program: String) -> String {
    let candidates = program.contains("/") ? [program]
        : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }
    var isFolder: ObjCBool = false
    let present = candidates.first { FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
    return present.map { "exists but is not executable (\($0): chmod +x)" } ?? "not found"
}
