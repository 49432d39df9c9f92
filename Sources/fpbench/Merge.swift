import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Gather the parts of a sharded benchmark, suite run or sweep into the results an unsharded run writes.",
        discussion: """
        Each part is the results.json of `fpbench benchmark --shard I/N` or `fpbench run --shard I/N`, or \
        the sweep.json of `fpbench sweep ... --shard I/N` (I from 0 to N-1). Parts of a benchmark whose \
        catalog was split (`--catalog-shard J/M`, with or without --shard) hold each slice's candidates: \
        give every slice of every query part, and the merge ranks them as the whole catalog does. The merged \
        results.json, summary, tables and figures are byte for byte those of the same benchmark run \
        without --shard (the costs section aside: each shard measured its own). A missing or repeated \
        part is named; a part from another configuration (seed, dataset manifest, version, spec, \
        algorithms or their parameters) is refused with the reason.

        Example (scripts/slurm/benchmark.sbatch runs the parts as a Slurm job array):
          fpbench benchmark --dataset catalog-ci --shard 0/2 --out runs/part-0
          fpbench benchmark --dataset catalog-ci --shard 1/2 --out runs/part-1
          fpbench merge runs/part-0/results.json runs/part-1/results.json --out runs/merged
        """)

    @Argument(help: "The parts' results.json (or sweep.json) files, or the folders that hold them.") var parts: [String]
    @Option(help: "Output folder.") var out = "runs/merged"
    @OptionGroup var progress: ProgressOptions

    /// A part's file: the path given, or the results.json or sweep.json inside a folder given.
    private func file(_ path: String) throws -> (path: String, data: Data) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw ValidationError("\(path): no such file") }
        let file = isFolder.boolValue
            ? ["results.json", "sweep.json"].map { URL(fileURLWithPath: path).appendingPathComponent($0).path }.first { FileManager.default.fileExists(atPath: $0) }
            : path
        guard let file else { throw ValidationError("\(path): a folder with neither results.json nor sweep.json; give a part's results.json or sweep.json") }
        guard let data = RegularFile.contents(file) else { throw ValidationError("\(file): cannot be read") }
        return (file, data)
    }

    func run() throws {
        let reporter = ProgressReporter(progress.mode)
        reporter.start("reading parts", total: parts.count)
        let files = try parts.map { path in
            defer { reporter.advance() }
            return try file(path)
        }
        reporter.start("merging and writing the report", total: 1)
        defer { reporter.finish() }
        let folder = URL(fileURLWithPath: out)
        guard let first = files.first else { throw ValidationError("give the parts' results.json files") }
        let kinds = try files.map { file in try validated { try ResultsKind.of(file.data, path: file.path) } }
        let kind = kinds[0]
        if let other = kinds.firstIndex(where: { $0 != kind }) {
            throw ValidationError("\(first.path) is \(kind.fileDescription) but \(files[other].path) is \(kinds[other].fileDescription): give the parts of one sharded run")
        }
        switch kind {
        case .sweep:
            let merged = try validated { try SweepRecord.merge(files: files) }
            try SweepReport.write(merged, to: folder)
            Console.note("fpbench merge: \(parts.count) parts, \(merged.points.count) points")
            print(folder.appendingPathComponent("sweep.md").path)
            return
        case .benchmark:
            let merged = try validated { try BenchmarkResults.merge(files: files) }
            try BenchmarkReport.write(merged, costs: nil, to: folder)
            Console.note("fpbench merge: \(parts.count) parts, \(merged.answers.count) answers")
        case .suite:
            let merged = try validated { try RunResults.merge(files: files) }
            try ReportWriter.write(merged, to: folder)
            Console.note("fpbench merge: \(parts.count) parts, \(merged.tests.count) tests")
        }
        print(folder.appendingPathComponent("summary.md").path)
    }
}
