import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

struct FingerprintFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fingerprint",
        abstract: "Fingerprint one audio file: size, bytes per second, and speed.",
        discussion: """
        Decodes the file, resamples it to the algorithm's rate and fingerprints it, then prints the number \
        of sub-fingerprints, the fingerprint's size, its size per second of audio, and how many seconds of \
        audio were fingerprinted per CPU second (decode + resample + fingerprint).

        Example: fpbench fingerprint -a afa-thesis Datasets/ci/audio/finch-348.wav --output finch.json
        """)

    @OptionGroup var algorithm: AlgorithmOption
    @Argument(help: "The audio file.") var file: String
    @Option(help: "Start of the window to fingerprint, in seconds.") var start: Double?
    @Option(help: "Length of the window to fingerprint, in seconds (with --start).") var duration: Double?
    @Option(name: .shortAndLong, help: "Write the fingerprint as JSON to this file.") var output: String?

    func run() throws {
        let algorithm = try algorithm.resolve()
        let window = try timeWindow(start: start, duration: duration)
        let clock = CPUClock()
        let fingerprint = try reportingFailure(file) { try algorithm.fingerprint(file: file, window: window) }
        let cpu = clock.elapsed
        print("\(file): \(algorithm.identifier)")
        print("  audio:             \(String(format: "%.3f", fingerprint.duration)) s")
        print("  sub-fingerprints:  \(fingerprint.subFingerprintCount)")
        print("  size:              \(fingerprint.byteCount) bytes, \(String(format: "%.1f", Double(fingerprint.byteCount) / fingerprint.duration)) bytes per second of audio")
        print("  speed:             \(String(format: "%.0f", fingerprint.duration / cpu)) s of audio per CPU second (\(String(format: "%.3f", cpu)) CPU s)")
        if let output {
            try writeAtomically(algorithm.encode(fingerprint), to: output)
            print("  written:           \(output)")
        }
    }
}
