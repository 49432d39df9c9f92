import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Reporting
import Foundation

struct Scale: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "The synthetic scale test: search time, memory, index size and false positives on catalogs grown past the real one.",
        discussion: """
        The benchmark's real catalog (default: catalog, 13.1 h) is grown to each of --hours with SYNTHETIC \
        tracks: each a real track's fingerprint with every key redrawn from the real catalog's keys, so the \
        index holds as many postings, spread over the keys as the real ones are, at the same times; for a \
        vector algorithm, a real track's times with vectors drawn to the real segments' mean, covariance \
        and neighbour correlation (docs/learned.md), searched by FAISS past 2,000,000 segments; only \
        the real tracks can be the right answer. The benchmark's own clean queries of --length seconds \
        (its positives and its negatives, drawn with its seed), and with --conditions its positives degraded \
        as the benchmark degrades them, are searched at each size: the search's \
        CPU time per query, the index's and the prints' bytes, the process's peak memory, correct top-1 at \
        the threshold calibrated at that size on the calibration half's negatives, and the held-out negatives \
        above it and above the threshold calibrated on the real catalog alone. Synthetic tracks cannot show \
        real music's near-duplicates or its keys' correlations in time; every output says "synthetic". \
        Everything is held in memory (but a vector algorithm's synthetic vectors, drawn again when \
        verification asks): about 8 GiB per 1,000 h for constellation, unless --slices M splits \
        each size into M slices built and searched one at a time (CatalogSlices: the whole catalog's common \
        keys counted first, ghosts at the slices' edges, the candidates merged as the whole index ranks \
        them), so a catalog larger than memory is measured with the whole catalog's answers. Then the \
        memory columns are the largest slice's and search time per query is the sum over the slices.

        Examples:
          fpbench scale --algorithms constellation haitsma-kalker --hours 13 100 1000 --out runs/scale
          fpbench scale --algorithms constellation --hours 1000 10000 --slices 16 --out runs/scale-10000h
          fpbench scale --algorithms panako@dense --hours 13 300 --conditions speed-0.95 pitch-up --out runs/scale-dense
          fpbench scale --algorithms nafp-small --hours 13 1000 10000 --out runs/scale-vectors
        """)

    @Option(parsing: .upToNextOption, help: "Algorithms with keys or vectors to draw anew (scalable in `fpbench algorithms`): \(AlgorithmRegistry.identifiers(with: .scalable).joined(separator: ", ")), and their variants.",
            completion: .list(AlgorithmRegistry.identifiers(with: .sliceable)))
    var algorithms: [String] = ["constellation", "haitsma-kalker"]
    @Option(parsing: .upToNextOption, help: "Catalog sizes in hours (real tracks first, then synthetic ones).") var hours: [Double] = [13, 100, 1000]
    @Option(help: "Query length in seconds.") var length = 10.0
    @Option(help: "Clean positive queries.") var queries = 100
    @Option(help: "Negative queries: those of one half of the negative recordings calibrate, the others' are held out.") var negatives = 500
    @Option(parsing: .upToNextOption, help: "Benchmark conditions whose degraded positives are searched too, at every size, judged at the threshold the clean negatives calibrate (default: none, clean queries only): \(BenchmarkSpec().conditions.map(\.id).filter { $0 != BenchmarkCondition.cleanID }.joined(separator: ", ")).")
    var conditions: [String] = []
    @Option(help: "Build and search each size as this many slices of the catalog, one at a time (memory: the largest slice's; search time: the sum over the slices): \(AlgorithmRegistry.identifiers(with: .sliceable).joined(separator: ", ")) and their variants.",
            completion: .list(AlgorithmRegistry.identifiers(with: .sliceable)))
    var slices = 1
    @Option(help: "Output folder (scale.csv, scale.md).") var out = "runs/scale"
    @OptionGroup var options: RunOptions

    func validate() throws {
        guard !hours.isEmpty, hours.allSatisfy({ $0 > 0 && $0 <= 100_000 }) else { throw ValidationError("--hours must be above 0 and at most 100,000") }
        guard length >= BenchmarkSpec.queryLengthRange.lowerBound, length <= 60 else { throw ValidationError("--length must be at least \(exactText(BenchmarkSpec.queryLengthRange.lowerBound)) s and at most 60 s") }
        guard (1...10_000).contains(slices) else { throw ValidationError("--slices must be 1 to 10,000") }
        guard (1...100_000).contains(queries), (2...100_000).contains(negatives) else { throw ValidationError("--queries must be 1 to 100,000 and --negatives 2 to 100,000") }
        _ = try degradedConditions()
    }

    func run() throws {
        var spec = BenchmarkSpec()
        spec.queriesPerLength = queries
        spec.negativesPerLength = negatives
        let configuration = options.benchmarkConfiguration(dataset: try options.loadDataset(default: "catalog"),
                                                           algorithms: try options.external.resolve(algorithms), spec: spec)
        var scale = SyntheticScale(benchmark: configuration, hours: hours, length: length)
        scale.slices = slices
        scale.conditions = try degradedConditions()
        let points = try validated { try scale.run() }
        let md = try ScaleReport.write(points, length: length, slices: slices, command: command(dataset: configuration.dataset.manifest.name),
                                       version: fpbenchVersion, to: URL(fileURLWithPath: out))
        print(md)
    }

    /// The asked conditions but `clean` (always searched), in the spec's order; an unknown id is refused.
    private func degradedConditions() throws -> [BenchmarkCondition] {
        guard !conditions.isEmpty else { return [] }
        return try BenchmarkChoice.spec(lengths: [], conditions: conditions, queries: nil, negatives: nil).conditions
            .filter { $0.id != BenchmarkCondition.cleanID }
    }

    private func g(_ value: Double) -> String { String(format: "%g", value) }

    /// The command that reproduces the figures: every option they depend on, no output path.
    private func command(dataset: String) -> String {
        "fpbench scale --algorithms \(algorithms.joined(separator: " ")) --hours \(hours.map(g).joined(separator: " ")) --length \(g(length)) "
            + "--queries \(queries) --negatives \(negatives) --seed \(options.seed) --dataset \(dataset)" + (slices > 1 ? " --slices \(slices)" : "")
            + (conditions.isEmpty ? "" : " --conditions " + conditions.joined(separator: " "))
    }
}
