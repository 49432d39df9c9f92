import ArgumentParser
import AudioIO
import Evaluation
import Foundation

struct Datasets: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datasets",
        abstract: "List datasets, their sources, families and durations, and check every file against its checksum.",
        discussion: """
        A broken manifest, a missing or corrupted file, and a window that does not fit in its file's real \
        length (what decodes, not what the header says) are each named, with the command that fixes it; \
        every dataset is checked even when one is broken. Exit code 1 when anything is wrong.

        Example: fpbench datasets            (every dataset under Datasets/)
                 fpbench datasets ci --quick (only that the files exist)
        """)

    @Argument(help: "Dataset names (default: every folder under Datasets/ with a manifest.json).") var names: [String] = []
    @Flag(help: "Only check that files exist: not their SHA-256, nor the windows against the decoded lengths.") var quick = false

    func run() throws {
        let root = URL(fileURLWithPath: "Datasets")
        let all = names.isEmpty
            ? ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
                .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/manifest.json").path) }
            : names
        var problems = 0
        for name in all {
            let dataset: Dataset
            do { dataset = try Dataset.load(name) } catch {
                Console.error("\(error)")
                problems += 1
                continue
            }
            let m = dataset.manifest
            print("\(m.name): \(m.description)")
            for source in m.sources {
                let excerpts = [source.reference] + source.alternates
                print("  \(source.id) [\(source.family)] \(source.name): "
                      + excerpts.map { "\($0.file) \($0.window)" }.joined(separator: "; alternate "))
            }
            print("  \(m.distractors.count) distractors, \(m.noises.count) noise recordings, \(m.impulseResponses.count) impulse responses"
                  + (m.catalog.map { ", a catalog of \($0.tracks.count) tracks and \($0.negatives.count) negatives" } ?? ""))
            let health = DatasetHealth(dataset, quick: quick)
            for problem in health.problems { Console.error(problem.message) }
            let missing = health.count(.missing), corrupt = health.count(.corrupt)
            problems += health.count(.misfit)
            let total = m.files.count + m.renders.count
            if missing + corrupt == 0 {
                print("  \(total) files present\(quick ? "" : ", checksums match")")
            } else {
                print("  \(missing) missing, \(corrupt) corrupted of \(total) files; fix with: scripts/fetch-dataset.sh \(name)")
                problems += missing + corrupt
            }
        }
        if problems > 0 { throw ExitCode.failure }
    }
}
