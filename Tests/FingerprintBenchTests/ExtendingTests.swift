import AudioIO
import DSP
@testable import Evaluation
@testable import Fingerprinting
import Foundation
@testable import OutsidePrograms
import Reporting
@testable import SuiteEvaluation
import Testing

@Suite struct ExternalAlgorithmTests {
    /// A real external process standing in for fpcalc: `od` prints the WAV's bytes as unsigned 32-bit words.
    func configuration(command: [String]) -> ExternalCommand.Configuration {
        ExternalCommand.Configuration(identifier: "od-words", displayName: "od as a fingerprinter", sampleRate: 8000,
                                        command: command, output: .words, compare: .bitErrorRate, wordDuration: 0.0005,
                                        minimumDuration: 0.1, berThreshold: 0.35, install: "coreutils", parameters: [])
    }

    @Test func anExternalCommandFingerprintsAndCompares() throws {
        let algorithm = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: configuration(command: ["od", "-An", "-v", "-tu4", "{input}"]))))
        let tone = sine(frequency: 440, duration: 1, sampleRate: 8000)
        let print = try algorithm.fingerprint(tone)
        #expect(print.subFingerprintCount == (44 + 16_000) / 4)  // the WAV header and 8,000 16-bit samples, as words
        #expect((print.base as? ExternalFingerprint)?.commandSeconds ?? 0 > 0)
        let identity = algorithm.compare(query: print, reference: print)
        #expect(identity.score == 1 && identity.rawFigure == 0 && algorithm.isMatch(identity))
        let other = try algorithm.fingerprint(sine(frequency: 1234, duration: 1, sampleRate: 8000))
        #expect(algorithm.compare(query: other, reference: print).score < 1)
    }

    /// With "search": "words" a catalog looks the words up (an index: the benchmark keeps it above its hour
    /// limit) and finds an excerpt's reference and offset; without, it is brute force.
    @Test func aWordsSearchIndexesTheCatalog() throws {
        var words = configuration(command: ["od", "-An", "-v", "-tu4", "{input}"])
        #expect(!Catalog(algorithm: AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: words)))).isIndexed)
        words.search = .words
        let algorithm = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: words)))
        let catalog = Catalog(algorithm: algorithm)
        #expect(catalog.isIndexed)
        let noise = SeededNoise(seed: 7)
        let recordings = (0..<3).map { _ in Audio(samples: (0..<16_000).map { _ in Float(noise.unit() - 0.5) }, sampleRate: 8000) }
        for (i, recording) in recordings.enumerated() { catalog.add(try algorithm.fingerprint(recording), name: "r\(i)") }
        // Word fingerprints are cut for verification (the Fingerprint requirement, through generic dispatch).
        func wordsCut<F: Fingerprint>(_ print: F) -> Int? { print.slice(from: 0.5, duration: 0.25)?.print.subFingerprintCount }
        #expect(wordsCut(try #require(try algorithm.fingerprint(recordings[0]).base as? ExternalFingerprint)) == 500)
        catalog.seal()
        // Samples 4,000-8,000 of the second recording: 16-bit samples two to a word, so the same words.
        let top = try #require(try catalog.search(try algorithm.fingerprint(recordings[1].slice(start: 0.5, duration: 0.5)), limit: 1).first)
        // Only the WAV header's words differ; the offset is 2,000 words at this configuration's 0.5 ms a word.
        #expect(top.reference == "r1" && top.comparison.rawFigure < 0.01 && abs(top.comparison.offset - 1) < 1e-9)
    }

    @Test func aFailingCommandIsReportedWithItsReason() throws {
        let missing = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: configuration(command: ["no-such-fingerprinter", "{input}"]))))
        #expect { try missing.fingerprint(sine(frequency: 440, duration: 1, sampleRate: 8000)) } throws: { error in
            "\(error)".contains("no-such-fingerprinter not found") && "\(error)".contains("coreutils")
        }
        let garbage = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: configuration(command: ["echo", "not words", "{input}"]))))
        #expect { try garbage.fingerprint(sine(frequency: 440, duration: 1, sampleRate: 8000)) } throws: {
            "\($0)".contains("not a list of 32-bit words")
        }
        #expect(throws: ExternalCommandError.self) { try ExternalCommand(configuration: configuration(command: ["od"])) }
        // Refused before a run (fpbench --external) instead of failing every query.
        #expect(try ExternalCommand(configuration: configuration(command: ["no-such-fingerprinter", "{input}"])).missingProgram == "no-such-fingerprinter")
        #expect(try ExternalCommand(configuration: configuration(command: ["od", "{input}"])).missingProgram == nil)
        #expect(try ExternalCommand(configuration: configuration(command: ["/bin/od", "{input}"])).missingProgram == nil)
    }

    /// A command that reads part of its input (fpcalc's default: the first 120 s) is an error naming both
    /// durations, fed a 3-minute file: `head -c` keeps the WAV header and the first 60 s of samples.
    @Test func aFingerprintCoveringPartOfItsAudioIsAnError() throws {
        let minutes = Audio(samples: [Float](repeating: 0.1, count: 8000 * 180), sampleRate: 8000)
        var cut = configuration(command: ["sh", "-c", "head -c \(44 + 8000 * 2 * 60) \"$0\" | od -An -v -tu4", "{input}"])
        cut.wordDuration = 1.0 / 4000  // two 16-bit samples a word
        let truncating = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: cut)))
        #expect { try truncating.fingerprint(minutes) } throws: {
            "\($0)".contains("cover 60.0 s of the 180.0 s") && "\($0)".contains("-length 0")
        }
        let whole = AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: configuration(command: ["od", "-An", "-v", "-tu4", "{input}"]))))
        #expect(try whole.fingerprint(minutes).subFingerprintCount == (44 + 8000 * 2 * 180) / 4)
    }

    @Test func theChromaprintConfigurationLoads() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Algorithms/chromaprint-fpcalc.json").path
        let command = try ExternalCommand.load(path), chromaprint = try command.algorithm()
        #expect(chromaprint.identifier == "chromaprint" && chromaprint.sampleRate == 11_025)
        #expect(chromaprint.profile.parameters.contains { $0.name == "command" && $0.value.hasPrefix("fpcalc -raw") })
        // The shipped configurations read whole files: fpcalc's own default is the first 120 s.
        for file in ["chromaprint-fpcalc.json", "chromaprint-fpcalc-indexed.json"] {
            let command = try ExternalCommand.load(URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file).path).configuration.command
            #expect(command.firstIndex(of: "-length").map { command[$0 + 1] } == "0", "\(file) lacks -length 0")
        }
        guard executablePath("fpcalc") != nil else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { try unavailable("fpcalc is not installed (scripts/test.sh installs libchromaprint-tools)") }
            return
        }
        // fpcalc itself, on 3 minutes of real music: the shipped configuration covers it, one without -length 0 is refused.
        let dataset = try catalogCIDataset()
        let tracks = ["track10.ogg", "track11.ogg"].map { dataset.path("drascula/\($0)") }
        let music = try tracks.map { try AudioReader.read($0, sampleRate: 11_025) }
        let threeMinutes = Audio(samples: Array((music[0].samples + music[1].samples).prefix(11_025 * 180)), sampleRate: 11_025)
        let print = try chromaprint.fingerprint(threeMinutes)
        #expect(Double(print.subFingerprintCount) * 0.1238 > 175)
        var cut = command.configuration
        cut.command.removeAll { $0 == "-length" || $0 == "0" }
        #expect { try AnyAlgorithm(ExternalAlgorithm(command: try ExternalCommand(configuration: cut))).fingerprint(threeMinutes) } throws: { "\($0)".contains("of the 180.0 s") }

        // The indexed configuration's index file is verified given its configuration, and named without it.
        let folder = temporaryFolder(), index = folder.appendingPathComponent("c.fpindex").path
        let indexed = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("chromaprint-fpcalc-indexed.json").path
        let build = try runFPBench(["index", "build", "--external", indexed, "-a", "chromaprint", "--catalog", tracks[0], tracks[1], "--quiet", "--out", index])
        #expect(build.status == 0, "\(build.errors)")
        let verified = try runFPBench(["index", "verify", "--external", indexed, index])
        #expect(verified.status == 0 && verified.output.contains("ok (chromaprint, 2 tracks"), "\(verified.output) \(verified.errors)")
        let unnamed = try runFPBench(["index", "verify", index])
        #expect(unnamed.status == 1 && unnamed.errors.contains("give its file with --external"), "\(unnamed.errors)")
    }
}

@Suite struct AlgorithmComparisonTests {
    @Test func deltasAndChangedSourcesAreReported() {
        func matrix(_ algorithm: String, _ scores: [[Double?]]) -> SimilarityMatrix {
            SimilarityMatrix(algorithm: algorithm, test: "t", rows: ["a", "b"], columns: ["a", "b"], scores: scores,
                             rawFigures: scores, offsets: scores)
        }
        let results = RunResults(
            tool: .init(name: "fpbench", version: "test"), seed: 1,
            dataset: .init(name: "d", manifestSHA256: "", sources: [.init(id: "a", name: "a", family: "f"), .init(id: "b", name: "b", family: "f")]),
            algorithms: [], tests: [.init(definition: TestDefinition(id: "t", title: "t", recipe: Cropping()), queries: [])],
            references: ["a", "b"],
            matrices: [matrix("old", [[0.9, 0.1], [0.6, 0.5]]), matrix("new", [[0.4, 0.5], [0.2, 0.8]])], catalogs: [],
            skipped: [], failures: [])
        let markdown = algorithmComparisonMarkdown(results, baseline: "old", candidate: "new")
        #expect(markdown.contains("| t | 1/2 [9-91] | 1/2 [9-91] | +0 | 1 (n.s.) | 70.0 | 60.0 | -10.0 |"), "\(markdown)")
        #expect(markdown.contains("- t: miss → hit: b; hit → miss: a"))
        #expect(markdown.contains("McNemar's exact p = 1: not significant at the 5 % level"))
    }
}

@Suite struct ProvenanceTests {
    @Test func aChangedValueIsMarkedWithItsCitedDefaultAndChangesTheCacheKey() {
        var parameters = Constellation.Parameters()
        parameters.fanOut = 10
        let changed = Constellation(parameters: parameters).profile
        let fanOut = changed.parameters.first { $0.name == "fanOut" }
        #expect(fanOut?.value == "10")
        #expect(fanOut?.source.hasPrefix("changed from the default (cited value: 3, audfprint") == true)
        #expect(changed.parameters.filter { $0.source.hasPrefix("changed") }.map(\.name) == ["fanOut"])
        for algorithm in AlgorithmRegistry.all {
            #expect(!algorithm.profile.parameters.contains { $0.source.hasPrefix("changed") }, "\(algorithm.identifier)")
        }
        #expect(changed.key != Constellation().profile.key)
    }
}
