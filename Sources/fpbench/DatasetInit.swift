import ArgumentParser
import Evaluation
import Foundation

struct DatasetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dataset",
        abstract: "Make a dataset of your own audio.",
        subcommands: [Init.self])

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a manifest, with every file's checksum, for a folder of audio files.",
            discussion: """
            Each audio file directly in FOLDER is a source; its first --window seconds are the reference. \
            NAME.alt.wav (any extension) beside NAME.wav is another recording of the same source (test 2); \
            or --pairs PAIRS.csv names them, a line SOURCE,ALTERNATE each (paths relative to FOLDER; the \
            alternate may sit in a subfolder; a source may have several, test 2 uses the first; Windows line \
            endings are read). A file paired with itself, an alternate that is also a source, or one file \
            as the alternate of two sources is refused with the line numbers, since each would drop a source. \
            Files in FOLDER/noises/ and FOLDER/impulses/ become noise recordings and impulse responses, \
            named by their file names. `fpbench run --dataset FOLDER` works without this step; the manifest \
            pins the files by checksum so that a run notices when one changes.

            Example:
              fpbench dataset init ~/recordings/birds --out Datasets/mybirds/manifest.json
              fpbench datasets mybirds
              fpbench run --dataset mybirds --tests test1-cropping test3-noise-3.16
            """)

        @Argument(help: "A folder of audio files (WAV, FLAC, OGG, Opus, MP3).") var folder: String
        @Option(help: "Seconds of each file used as its reference (the thesis: 9).") var window = 9.0
        @Option(help: "A CSV of SOURCE,ALTERNATE lines: which file is another recording of which (test 2).") var pairs: String?
        @Option(help: "Where to write the manifest (default: FOLDER/manifest.json).") var out: String?

        func validate() throws {
            guard window.isFinite, window > 0, window <= 3600 else { throw ValidationError("--window must be above 0 and at most 3,600 s") }
        }

        func run() throws {
            let source = URL(fileURLWithPath: folder)
            let target = URL(fileURLWithPath: out ?? source.appendingPathComponent("manifest.json").path)
            let manifest = try validated { try DatasetFolder.manifest(source, window: window, pairsFile: pairs.map { URL(fileURLWithPath: $0) }, manifestFolder: target.deletingLastPathComponent()) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeAtomically(try encoder.encode(manifest), to: target.path)
            print("\(target.path): \(manifest.sources.count) sources (\(manifest.sources.filter { !$0.alternates.isEmpty }.count) with another recording), "
                  + "\(manifest.noises.count) noises, \(manifest.impulseResponses.count) impulse responses, \(manifest.files.count) checksums")
        }
    }
}
