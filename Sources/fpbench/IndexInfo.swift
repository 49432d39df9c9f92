import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation

extension IndexCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "What an index file holds: algorithm, parameters, tracks, size, and its calibrated thresholds.",
            discussion: "Opening the file checks its header (`fpbench index verify` checks every byte).\n\nExample: fpbench index info music.fpindex")

        @Argument(help: "The index file.") var index: String
        @Flag(help: "List every track with its duration and SHA-256.") var tracks = false

        func run() throws {
            let reader = try validated { try IndexFile.Reader(path: index) }
            let h = reader.header
            let hours = h.durations.reduce(0, +) / 3600
            print("\(index): \(h.algorithm) (revision \(h.revision)), \(h.references.count) tracks, \(String(format: "%.2f", hours)) h, "
                  + String(format: "%.1f MiB (%.2f MiB per hour of audio)", Double(reader.byteCount) / 1_048_576, Double(reader.byteCount) / 1_048_576 / max(hours, 1e-9)))
            print("parameters: \(h.profile)")
            if let c = h.calibration {
                let held = c.heldOutFiles.map { "\($0.count) held out" } ?? "halves not split by recording: built by an older fpbench"
                let sure = c.confidence.map { String(format: " with %g %% confidence", 100 * $0) } ?? ""
                print(String(format: "calibrated \"no match\" threshold (at most %g %% false positives%@; seed %llu; negatives from %d recordings, %@):",
                             100 * c.falsePositiveTarget, sure, c.seed, c.negativeFiles.count, held))
                for l in c.lengths {
                    let rate = Rate(l.heldOutFalsePositives, of: l.heldOutScores.count)
                    print(String(format: "  %@ queries: score > %.3f (calibrated on %d negatives); held out: %d of %d false positives, %.1f %% [95 %% interval %.1f-%.1f over windows%@]",
                                 QueryLength(l.length).spoken, l.threshold, l.calibrationScores.count, rate.successes, rate.total, 100 * rate.value, 100 * rate.low, 100 * rate.high,
                                 l.heldOutUpper.map { String(format: ", up to %.1f over recordings", 100 * $0) } ?? ""))
                }
                for warning in c.warnings { print("  warning: \(warning)") }
            } else {
                print("threshold: the algorithm's documented one, not calibrated (build with --negatives FILES|FOLDER to calibrate)")
            }
            if tracks {
                for (i, name) in h.references.enumerated() {
                    print(String(format: "  %8.1f s  %@  %@", h.durations[i], h.checksums[i].isEmpty ? "(no checksum)" : String(h.checksums[i].prefix(16)), name))
                }
            }
        }
    }
}
