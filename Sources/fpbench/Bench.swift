import ArgumentParser
import AudioIO
import Fingerprinting

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure fingerprinting speed: seconds of audio per CPU second, per algorithm.",
        discussion: """
        For each algorithm and file: decode + resample + fingerprint, repeated --repeat times; prints the \
        best run's seconds of audio per CPU second (child processes included, so an external command's start-up \
        counts) and the fingerprint's bytes per second of audio. \
        Build in release mode for meaningful figures: swift build -c release.

        Example: .build/release/fpbench bench Datasets/ci/audio/*.wav
        """)

    @Argument(help: "Audio files (44.1 kHz WAV is the reference case).") var files: [String]
    @Option(name: .shortAndLong, parsing: .upToNextOption, help: "Algorithms to measure (default: all).")
    var algorithms: [String] = []
    @Option(help: "Runs per file; the fastest counts.") var `repeat` = 3
    @OptionGroup var external: ExternalOption

    func run() throws {
        let chosen = try external.resolve(algorithms)
        print("algorithm        audio s   CPU s    audio s / CPU s   bytes / s")
        for algorithm in chosen {
            var audioSeconds = 0.0, cpuSeconds = 0.0, bytes = 0
            for file in files {
                var best = Double.infinity
                var fingerprint: AnyFingerprint?
                for _ in 0..<max(1, `repeat`) {
                    let clock = CPUClock()
                    fingerprint = try reportingFailure(file) { try algorithm.fingerprint(file: file) }
                    best = min(best, clock.elapsed)
                }
                audioSeconds += fingerprint!.duration
                cpuSeconds += best
                bytes += fingerprint!.byteCount
            }
            print(algorithm.identifier.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + String(format: "%8.1f %8.3f %17.0f %11.1f", audioSeconds, cpuSeconds, audioSeconds / cpuSeconds,
                           Double(bytes) / audioSeconds))
        }
    }
}
