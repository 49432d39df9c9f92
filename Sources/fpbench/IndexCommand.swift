import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index a catalog once, into a file that many benchmarks, shards and searches map; grow it; see what it holds.",
        subcommands: [Build.self, Add.self, Info.self, Verify.self])

    static func save(_ catalog: Catalog, to path: String) throws {
        let target = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try catalog.save(to: target.path)
        } catch {
            Console.error("\(path): cannot be written (\(error.localizedDescription))")
            throw ExitCode.failure
        }
    }

    static func describe(_ catalog: Catalog, path: String, seconds: Double) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let hours = catalog.duration / 3600
        var line = String(format: "fpbench index: %d tracks, %.2f h, %.1f MiB (%.2f MiB per hour of audio) in %.1f s", catalog.names.count, hours,
                          Double(bytes) / 1_048_576, Double(bytes) / 1_048_576 / max(hours, 1e-9), seconds)
        if let c = catalog.calibration {
            line += "; calibrated: " + c.lengths.map { String(format: "%@ > %.3f (held out %d/%d)", QueryLength($0.length).spoken, $0.threshold, $0.heldOutFalsePositives, $0.heldOutScores.count) }.joined(separator: ", ")
        }
        Console.note(line)
        for warning in catalog.calibration?.warnings ?? [] { Console.warning("the calibration: \(warning)") }
        print(path)
    }
}
