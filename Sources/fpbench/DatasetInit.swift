import ArgumentParser
import AudioIO
import Evaluation
import Foundation

struct DatasetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dataset",
        abstract: "Make a dataset of your own audio.",
        subcommands: [Init.self])

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write a manifest, with every file's checksum, for a folder of audio files (a suite's sources, or a benchmark's catalog).",
            discussion: """
            Sources for the thesis suite (`fpbench run`): each audio file directly in FOLDER is a source; its \
            first --window seconds are the reference. NAME.alt.wav (any extension) beside NAME.wav is another \
            recording of the same source (test 2); or --pairs PAIRS.csv names them, a line SOURCE,ALTERNATE \
            each (paths relative to FOLDER; the alternate may sit in a subfolder; a source may have several, \
            test 2 uses the first; Windows line endings are read). A file paired with itself, an alternate that \
            is also a source, or one file as the alternate of two sources is refused with the line numbers, \
            since each would drop a source. Files in FOLDER/noises/ and FOLDER/impulses/ become noise \
            recordings and impulse responses, named by their file names.

            A catalog for the identification benchmark (`fpbench benchmark`): --catalog TRACKS --negatives \
            OTHERS makes every audio file under TRACKS (searched recursively) a catalog track and every one \
            under OTHERS a recording that is not in the catalog (queries cut from them must find no match). \
            Where the dataset has no babble or impulse responses, the benchmark takes the project's own \
            (Datasets/default) and says so in its summary.

            `fpbench run --dataset FOLDER` and `fpbench benchmark --dataset FOLDER` (a folder of tracks with \
            a negatives/ subfolder) work without this step; the manifest pins the files by checksum so that a \
            run notices when one changes.

            Examples:
              fpbench dataset init ~/recordings/birds --out Datasets/mybirds/manifest.json
              fpbench run --dataset mybirds --tests test1-cropping test3-noise-3.16
              fpbench dataset init --catalog ~/Music/albums --negatives ~/Music/other --out Datasets/mymusic/manifest.json
              fpbench benchmark --dataset mymusic --algorithms constellation panako@dense
            """)

        @Argument(help: "A folder of audio files: a suite's sources (WAV, FLAC, Ogg, Opus, MP3, M4A, ...).") var folder: String?
        @Option(help: "Seconds of each file used as its reference (the thesis: 9).") var window = 9.0
        @Option(help: "A CSV of SOURCE,ALTERNATE lines: which file is another recording of which (test 2).") var pairs: String?
        @Option(help: "A folder of catalog tracks for the benchmark (searched recursively); needs --negatives.") var catalog: String?
        @Option(help: "A folder of recordings not in the catalog (the benchmark's negative queries).") var negatives: String?
        @Option(help: "Where to write the manifest (default: FOLDER/manifest.json, or the catalog folder's).") var out: String?

        func validate() throws {
            guard window.isFinite, window > 0, window <= 3600 else { throw ValidationError("--window must be above 0 and at most 3,600 s") }
            switch (folder, catalog, negatives) {
            case (_?, nil, nil): break
            case (nil, _?, _?): guard pairs == nil else { throw ValidationError("--pairs belongs to a suite's folder, not to --catalog") }
            case (nil, _?, nil), (nil, nil, _?): throw ValidationError("--catalog and --negatives go together: a benchmark needs recordings that are not in its catalog")
            case (nil, nil, nil): throw ValidationError("give a FOLDER of sources, or --catalog TRACKS --negatives OTHERS")
            default: throw ValidationError("give a FOLDER of sources or --catalog/--negatives, not both")
            }
        }

        func run() throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            if let catalog, let negatives {
                let tracks = URL(fileURLWithPath: catalog)
                let target = URL(fileURLWithPath: out ?? tracks.appendingPathComponent("manifest.json").path)
                var manifest = try validated {
                    try DatasetFolder.catalogManifest(tracks: tracks, negatives: URL(fileURLWithPath: negatives), manifestFolder: target.deletingLastPathComponent())
                }
                let unreadable = Self.leaveOutUnreadable(&manifest, manifestFolder: target.deletingLastPathComponent())
                try write(manifest, to: target, encoder: encoder)
                defer { if unreadable > 0 { Foundation.exit(2) } }
                print("\(target.path): \(manifest.catalog!.tracks.count) catalog tracks, \(manifest.catalog!.negatives.count) negatives, "
                      + "\(manifest.noises.count) noises, \(manifest.impulseResponses.count) impulse responses, \(manifest.files.count) checksums")
                return
            }
            let source = URL(fileURLWithPath: folder!)
            let target = URL(fileURLWithPath: out ?? source.appendingPathComponent("manifest.json").path)
            let manifest = try validated { try DatasetFolder.manifest(source, window: window, pairsFile: pairs.map { URL(fileURLWithPath: $0) }, manifestFolder: target.deletingLastPathComponent()) }
            try write(manifest, to: target, encoder: encoder)
            print("\(target.path): \(manifest.sources.count) sources (\(manifest.sources.filter { !$0.alternates.isEmpty }.count) with another recording), "
                  + "\(manifest.noises.count) noises, \(manifest.impulseResponses.count) impulse responses, \(manifest.files.count) checksums")
        }

        /// Decodes every file once, as it is checksummed, so a file no library can read is found now, named
        /// and left out of the manifest, not when a run meets it. Returns how many were left out.
        static func leaveOutUnreadable(_ manifest: inout DatasetManifest, manifestFolder: URL) -> Int {
            let root = manifest.audioRoot.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : manifestFolder.appendingPathComponent($0) } ?? manifestFolder
            var gone = Set<String>()
            for file in manifest.usedFiles {
                do { try AudioReader.stream(root.appendingPathComponent(file).path) { _ in } } catch {
                    Console.error("\(file): left out of the manifest: \(error)")
                    gone.insert(file)
                }
            }
            guard !gone.isEmpty else { return 0 }
            manifest.files.removeAll { gone.contains($0.path) }
            manifest.catalog?.tracks.removeAll(where: gone.contains)
            manifest.catalog?.negatives.removeAll(where: gone.contains)
            manifest.noises.removeAll { gone.contains($0.file) }
            manifest.impulseResponses.removeAll { gone.contains($0.file) }
            return gone.count
        }

        private func write(_ manifest: DatasetManifest, to target: URL, encoder: JSONEncoder) throws {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeAtomically(try encoder.encode(manifest), to: target.path)
        }
    }
}
