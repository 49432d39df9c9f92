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
            var missing = 0, corrupt = 0
            for file in m.files + m.renders {
                let path = dataset.path(file.path)
                if !FileManager.default.fileExists(atPath: path) {
                    missing += 1
                    Console.error("\(path): missing")
                } else if !quick, let expected = file.sha256, (try? sha256Hex(file: path)) != expected {
                    corrupt += 1
                    Console.error("\(path): SHA-256 does not match the manifest (corrupted or changed)")
                }
            }
            // Every window must fit in what its file really decodes to.
            var misfits = 0
            var lengths: [String: Double] = [:]
            for excerpt in m.sources.flatMap({ [$0.reference] + $0.alternates }) + m.distractors
            where !quick && FileManager.default.fileExists(atPath: dataset.path(excerpt.file)) {
                if lengths[excerpt.file] == nil { lengths[excerpt.file] = (try? AudioReader.info(dataset.path(excerpt.file)))?.duration ?? 0 }
                if excerpt.start + excerpt.duration > lengths[excerpt.file]! + 1e-6 {
                    misfits += 1
                    Console.error(String(format: "%@: window %@ does not fit in the %.3f s that decode", dataset.path(excerpt.file),
                                      "\(excerpt.window)", lengths[excerpt.file]!))
                }
            }
            problems += misfits
            // A file a section uses but the file list does not name is checked too (it has no checksum).
            let listed = Set((m.files + m.renders).map(\.path))
            // In a manifest that pins its files, such a file would be used unchecked: a problem, not a pass.
            for file in m.usedFiles where !listed.contains(file) {
                if !FileManager.default.fileExists(atPath: dataset.path(file)) {
                    missing += 1
                    Console.error("\(dataset.path(file)): missing (used by the manifest, not in its file list)")
                } else if !listed.isEmpty {
                    corrupt += 1
                    Console.error("\(dataset.path(file)): used by the manifest but not pinned in its files (no SHA-256)")
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
