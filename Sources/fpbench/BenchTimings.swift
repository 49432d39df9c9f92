import AudioIO
import Evaluation
import Fingerprinting
import Foundation
import Systems

/// What `fpbench bench` measures: each algorithm's best CPU seconds per file, fpcalc's in the same loop, the
/// decoding floor per rate, and each algorithm's peak memory in a process of its own.
struct BenchTimings {
    var ours: [[Double]], peer: [Double], audioSeconds: [Double], bytes: [[Int]], peerAvailable: Bool
    var floor: [Double: [Double]], memory: [Int?], peerMemory: Int?

    init(_ chosen: [AnyAlgorithm], files: [String], repeats: Int, peer measurePeer: Bool, external: ExternalOption, progress: ProgressReporter) throws {
        // Best CPU seconds per algorithm and file, and fpcalc's, measured file by file, alternating.
        var ours = chosen.map { _ in [Double](repeating: .infinity, count: files.count) }
        var peer = [Double](repeating: .infinity, count: files.count)
        var audioSeconds = [Double](repeating: 0, count: files.count)
        var bytes = chosen.map { _ in [Int](repeating: 0, count: files.count) }
        var peerAvailable = measurePeer
        progress.start("timing", total: files.count * repeats)
        for (f, file) in files.enumerated() {
            for _ in 0..<repeats {
                defer { progress.advance() }
                for (a, algorithm) in chosen.enumerated() {
                    let clock = CPUClock()
                    let made = try reportingFailure(file) { try algorithm.fingerprint(file: file) }
                    ours[a][f] = min(ours[a][f], clock.elapsed)
                    audioSeconds[f] = made.duration
                    bytes[a][f] = made.byteCount
                }
                if peerAvailable {
                    if let timing = PeerTiming.fpcalc([file]), timing.failure == nil, let cpu = timing.cpuSeconds.first {
                        peer[f] = min(peer[f], cpu)
                    } else { peerAvailable = false }
                }
            }
        }
        // The floor: decoding and resampling alone, at each distinct rate, with the same reader, streamed
        // as the algorithms are (holding the signal would add its allocation to the floor).
        var floor: [Double: [Double]] = [:]
        let rates = Set(chosen.map(\.sampleRate))
        progress.start("decoding alone", total: rates.count * files.count)
        for rate in rates {
            floor[rate] = try files.map { file in
                defer { progress.advance() }
                return try (0..<repeats).map { _ in
                    let clock = CPUClock()
                    _ = try reportingFailure(file) { try AudioReader.stream(file, sampleRate: rate) { _ in } }
                    return clock.elapsed
                }.min() ?? .infinity
            }
        }
        // Peak memory: each algorithm alone in a process of its own (`fpbench fingerprint`), the largest over the files.
        progress.start("peak memory, one process each", total: chosen.count)
        let memory = chosen.map { algorithm in
            defer { progress.advance() }
            return files.compactMap { file in try? ChildRun.run(Bench.executable, ["fingerprint", "-a", algorithm.identifier, file] + external.arguments) }
                .filter { $0.status == 0 }.map(\.peakResidentBytes).max()
        }
        let peerMemory = peerAvailable ? files.compactMap { PeerTiming.fpcalc([$0])?.peakResidentBytes?.first }.max() : nil
        progress.finish()

        self.ours = ours; self.peer = peer; self.audioSeconds = audioSeconds; self.bytes = bytes; self.peerAvailable = peerAvailable
        self.floor = floor; self.memory = memory; self.peerMemory = peerMemory
    }
}
