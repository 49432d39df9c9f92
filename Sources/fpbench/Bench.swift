import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure fingerprinting speed: seconds of audio per CPU second, per algorithm.",
        discussion: """
        For each algorithm and file: decode + resample + fingerprint, repeated --repeat times; prints the \
        best run's seconds of audio per CPU second (child processes included, so an external command's start-up \
        counts) and the fingerprint's bytes per second of audio. When Chromaprint's `fpcalc` is installed \
        (Debian libchromaprint-tools), it is timed on the same files in the same run, alternating with the \
        algorithms, and each algorithm gets its speed ratio to fpcalc: the median over the files of \
        fpcalc's CPU time over ours (above 1, ours is faster). Each algorithm's peak resident memory is \
        measured in a process of its own (`fpbench fingerprint`, start-up included; fpcalc's likewise), and \
        its CPU time is set against decoding and resampling the same files alone with the same reader \
        (× decode alone: 1.00 would mean fingerprinting costs nothing). The "decode" rows time decoding alone \
        at the file's own rate and resampled to each algorithm's rate, through FFmpeg's libraries (the reader) \
        and through libsndfile (the reader before it, where it reads every file), side by side. \
        Build in release mode for meaningful figures: swift build -c release.

        Example: .build/release/fpbench bench Datasets/catalog/audio/wesnoth/*.ogg
        """)

    @Argument(help: "Audio files (44.1 kHz WAV is the reference case).") var files: [String] = []
    @Option(name: .shortAndLong, parsing: .upToNextOption, help: AlgorithmNames.help("Algorithms to measure (default: all)."),
            completion: AlgorithmNames.completion)
    var algorithms: [String] = []
    @Option(help: "Runs per file; the fastest counts.") var `repeat` = 3
    @Flag(help: "Do not time Chromaprint's fpcalc beside the algorithms.") var noPeer = false
    @OptionGroup var external: ExternalOption
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        guard (1...100).contains(`repeat`) else { throw ValidationError("--repeat must be 1 to 100, got \(`repeat`)") }
        guard !files.isEmpty else {
            // `-a A B FILE` reads FILE as a third algorithm: say so instead of only "missing files".
            let swallowed = algorithms.filter { FileManager.default.fileExists(atPath: $0) }
            throw ValidationError(swallowed.isEmpty ? "give at least one audio file"
                : "no audio files: \(swallowed.joined(separator: ", ")) was read as an algorithm name; put the files before -a, or end the algorithm list with --")
        }
    }

    func run() throws {
        let chosen = try external.resolve(algorithms)
        let t = try reportingFailure("bench") {
            try SpeedMeasurements(chosen, files: files, repeats: `repeat`, peer: !noPeer, executable: Self.executable, arguments: external.arguments,
                                  progress: ProgressReporter(progress.mode))
        }
        let totalAudio = t.audioSeconds.reduce(0, +)
        print("algorithm" + String(repeating: " ", count: 19) + "audio s   CPU s    audio s / CPU s   bytes / s   peak MB   × decode alone" + (t.peerAvailable ? "   fpcalc CPU / ours (median over files)" : ""))
        func row(_ name: String, _ cpu: [Double], _ bytesPerSecond: Double?, _ peak: Int?, _ overFloor: Double?, _ ratio: Double?) {
            let total = cpu.reduce(0, +)
            func column(_ value: Double?, _ format: String, width: Int) -> String {
                value.map { String(format: format, $0) } ?? String(repeating: " ", count: width)
            }
            var line = name.padding(toLength: 28, withPad: " ", startingAt: 0)
            line += String(format: "%8.1f %8.3f %17.0f", totalAudio, total, totalAudio / total)
            line += column(bytesPerSecond, " %11.1f", width: 12)
            line += column(peak.map { Double($0) / 1_000_000 }, " %9.0f", width: 10)
            line += column(overFloor, " %16.2f", width: 17)
            line += ratio.map { String(format: " %12.2f", $0) } ?? ""
            print(line)
        }
        for (a, algorithm) in chosen.enumerated() {
            let decode = t.readerFloor[algorithm.sampleRate]?.reduce(0, +) ?? 0
            row(algorithm.identifier, t.ours[a], Double(t.bytes[a].reduce(0, +)) / totalAudio, t.memory[a],
                decode > 0 ? t.ours[a].reduce(0, +) / decode : nil, t.peerAvailable ? PeerTiming.medianRatio(peer: t.peer, ours: t.ours[a]) : nil)
        }
        for key in t.floor.keys.sorted() { row(key.name, t.floor[key]!, nil, nil, nil, nil) }
        if t.peerAvailable { row("fpcalc (peer)", t.peer, nil, t.peerMemory, nil, nil) } else if !noPeer {
            Console.note("fpcalc not timed: not installed or failed (apt-get install libchromaprint-tools)")
        }
    }

    /// This executable, for measuring one algorithm in a process of its own.
    static var executable: String {
        let path = CommandLine.arguments[0]
        return path.contains("/") ? URL(fileURLWithPath: path).standardizedFileURL.path : (Bundle.main.executablePath ?? path)
    }
}
