import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

extension IndexCommand {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check every byte of index files: each section's checksum, each block of the postings, each fingerprint.",
            discussion: """
            Searching an index file verifies only what it reads (the header when the file is opened, then \
            each 512-byte block of the postings and each track's fingerprint on first use), so opening a large \
            file stays cheap and damage is still refused where it would change an answer. This reads \
            everything: run it after copying an index to another machine or before a long benchmark. \
            Exits 1 naming the first damaged section of each damaged file.

            Examples:
              fpbench index verify runs/*.fpindex
              fpbench index verify --external Algorithms/chromaprint-fpcalc-indexed.json chromaprint.fpindex
            """)

        @Argument(help: "Index files.") var indexes: [String]
        @OptionGroup var external: ExternalOption

        func run() throws {
            var damaged = 0
            for path in indexes {
                do {
                    let started = Date()
                    let header = try IndexFile.Reader(path: path).header
                    let available = try external.algorithms()
                    let algorithm = try AlgorithmRegistry.algorithm(header.algorithm, among: available)
                    let catalog = try Catalog(algorithm: algorithm, indexFile: path)
                    try catalog.verifyAll()
                    let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                    print(String(format: "%@: ok (%@, %d tracks, %d sections, %.1f MiB verified in %.2f s)", path, header.algorithm,
                                 header.references.count, header.sections.count, Double(bytes) / 1_048_576, Date().timeIntervalSince(started)))
                } catch let unknown as UnknownAlgorithm {
                    damaged += 1
                    Console.error("\(path): \(unknown) (an external algorithm's index? give its file with --external)")
                } catch {
                    damaged += 1
                    Console.error(error is IndexFileError ? "\(error)" : "\(path): \(error)")
                }
            }
            if damaged > 0 { throw ExitCode.failure }
        }
    }
}
