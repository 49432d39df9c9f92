import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure fingerprinting speed: seconds of audio per CPU second, per algorithm.",
        discussion: """
        For each algorithm and file: decode + resample + fingerprint, repeated --repeat times; prints the \
        best run's seconds of audio per CPU second (child processes included, so an external command's start-up \
        counts) and the fingerprint's bytes per second of audio. When Chromaprint's `fpcalc` is installed \
        (Debian libchromaprint-tools), it is timed on the same files in the same run, alternating with the \
        algorithms, and each algorithm gets its speed ratio to fpcalc: the median over the files of \
        fpcalc's CPU time over ours (above 1, ours is faster). \
        Build in release mode for meaningful figures: swift build -c release.

        Example: .build/release/fpbench bench Datasets/catalog/audio/wesnoth/*.ogg
        """)

    @Argument(help: "Audio files (44.1 kHz WAV is the reference case).") var files: [String]
    @Option(name: .shortAndLong, parsing: .upToNextOption, help: "Algorithms to measure (default: all).")
    var algorithms: [String] = []
    @Option(help: "Runs per file; the fastest counts.") var `repeat` = 3
    @Flag(help: "Do not time Chromaprint's fpcalc beside the algorithms.") var noPeer = false
    @OptionGroup var external: ExternalOption

    func validate() throws {
        guard (1...100).contains(`repeat`) else { throw ValidationError("--repeat must be 1 to 100, got \(`repeat`)") }
    }

    func run() throws {
        let chosen = try external.resolve(algorithms)
        // Best CPU seconds per algorithm and file, and fpcalc's, measured file by file, alternating.
        var ours = chosen.map { _ in [Double](repeating: .infinity, count: files.count) }
        var peer = [Double](repeating: .infinity, count: files.count)
        var audioSeconds = [Double](repeating: 0, count: files.count)
        var bytes = chosen.map { _ in [Int](repeating: 0, count: files.count) }
        var peerAvailable = !noPeer
        for (f, file) in files.enumerated() {
            for _ in 0..<`repeat` {
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
        let totalAudio = audioSeconds.reduce(0, +)
        print("algorithm        audio s   CPU s    audio s / CPU s   bytes / s" + (peerAvailable ? "   fpcalc CPU / ours (median over files)" : ""))
        func row(_ name: String, _ cpu: [Double], _ bytesPerSecond: Double?, _ ratio: Double?) {
            let total = cpu.reduce(0, +)
            print(name.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + String(format: "%8.1f %8.3f %17.0f", totalAudio, total, totalAudio / total)
                  + (bytesPerSecond.map { String(format: " %11.1f", $0) } ?? String(repeating: " ", count: 12))
                  + (ratio.map { String(format: " %12.2f", $0) } ?? ""))
        }
        for (a, algorithm) in chosen.enumerated() {
            row(algorithm.identifier, ours[a], Double(bytes[a].reduce(0, +)) / totalAudio,
                peerAvailable ? PeerTiming.medianRatio(peer: peer, ours: ours[a]) : nil)
        }
        if peerAvailable { row("fpcalc (peer)", peer, nil, nil) } else if !noPeer {
            FileHandle.standardError.write(Data("fpcalc not timed: not installed or failed (apt-get install libchromaprint-tools)\n".utf8))
        }
    }
}
