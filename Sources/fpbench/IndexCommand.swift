import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index a dataset's catalog once, into a file that many benchmarks, shards and searches map.",
        subcommands: [Build.self])

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an algorithm's index of a dataset's catalog tracks to a file.",
            discussion: """
            The file holds the algorithm's index (its postings, read in place through a memory mapping, so \
            a catalog larger than memory still answers), its identity (identifier, revision, every \
            parameter: a file made with other parameters is refused) and each track's fingerprint for \
            verification (read only when a candidate needs it). Use it with `fpbench benchmark --index FILE` \
            and `fpbench identify --index FILE`.

            Example:
              fpbench index build --algorithm constellation --dataset catalog --out runs/constellation.fpindex
              fpbench benchmark --algorithms constellation --index runs/constellation.fpindex
            """)

        @OptionGroup var algorithm: AlgorithmOption
        @Option(help: "Dataset with a catalog section (default: catalog).") var dataset = "catalog"
        @Option(help: "Fingerprint cache folder.") var cache = ".fpbench-cache/fingerprints"
        @Option(help: "Worker threads (default: all cores).") var threads = ProcessInfo.processInfo.activeProcessorCount
        @Option(help: "The index file to write.") var out: String
        @OptionGroup var progress: ProgressOptions

        func run() throws {
            let chosen = try algorithm.resolve()
            let data = try validated { try Dataset.load(dataset) }
            let started = Date()
            let configuration = BenchmarkConfiguration(dataset: data, algorithms: [chosen], spec: BenchmarkSpec(), seed: 0,
                                                       threads: max(1, threads), cacheFolder: URL(fileURLWithPath: cache), progress: progress.mode,
                                                       toolVersion: fpbenchVersion)
            let (catalogs, failures) = try validated { try Benchmark(configuration).buildCatalogs() }
            for failure in failures { printError("\(failure.item): \(failure.reason)") }
            let target = URL(fileURLWithPath: out)
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try catalogs[0].save(to: target.path)
            } catch {
                printError("\(out): cannot be written (\(error.localizedDescription))")
                throw ExitCode.failure
            }
            let bytes = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
            let hours = catalogs[0].duration / 3600
            FileHandle.standardError.write(Data(String(format: "fpbench index: %d tracks, %.2f h, %.1f MiB (%.2f MiB per hour of audio) in %.1f s\n",
                                                       catalogs[0].names.count, hours, Double(bytes) / 1_048_576,
                                                       Double(bytes) / 1_048_576 / max(hours, 1e-9), Date().timeIntervalSince(started)).utf8))
            print(out)
            if !failures.isEmpty { throw ExitCode(2) }
        }
    }
}
