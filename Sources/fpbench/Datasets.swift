import ArgumentParser
import AudioIO
import Evaluation
import Foundation

struct Datasets: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datasets",
        abstract: "List datasets, their sources, families and durations, and check every file against its checksum.",
        discussion: """
        A missing or corrupted file is named, with the command that fixes it. Exit code 1 when any file \
        is missing or does not match.

        Example: fpbench datasets            (every dataset under Datasets/)
                 fpbench datasets ci --quick (skip the checksums)
        """)

    @Argument(help: "Dataset names (default: every folder under Datasets/ with a manifest.json).") var names: [String] = []
    @Flag(help: "Only check that files exist, not their SHA-256.") var quick = false

    func run() throws {
        let root = URL(fileURLWithPath: "Datasets")
        let all = names.isEmpty
            ? ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
                .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/manifest.json").path) }
            : names
        var problems = 0
        for name in all {
            let dataset = try validated { try Dataset.load(name) }
            let m = dataset.manifest
            print("\(m.name): \(m.description)")
            for source in m.sources {
                let excerpts = [source.reference] + source.alternates
                print("  \(source.id) [\(source.family)] \(source.name): "
                      + excerpts.map { "\($0.file) \($0.window)" }.joined(separator: "; alternate "))
            }
            print("  \(m.distractors.count) distractors, \(m.noises.count) noise recordings, \(m.impulseResponses.count) impulse responses")
            var missing = 0, corrupt = 0
            for file in m.files + m.renders {
                let path = dataset.path(file.path)
                if !FileManager.default.fileExists(atPath: path) {
                    missing += 1
                    printError("\(path): missing")
                } else if !quick, let expected = file.sha256, (try? sha256Hex(file: path)) != expected {
                    corrupt += 1
                    printError("\(path): SHA-256 does not match the manifest (corrupted or changed)")
                }
            }
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
