import AudioIO
import Degradation
@testable import BenchmarkEvaluation
@testable import Evaluation
@testable import Fingerprinting
import Foundation
import Reporting
@testable import SuiteEvaluation
import Testing

/// The synthetic scale test's parts: a synthetic track keeps its model's timing and draws its keys from
/// the pool; a catalog grown with them keeps answering its real tracks, and grows as the hours do.
@Suite(.serialized) struct SyntheticScaleTests {
    @Test func aSyntheticTrackKeepsItsModelsTimingAndDrawsItsKeysFromThePool() throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm("constellation")
        let model = try algorithm.fingerprint(file: dataset.path(dataset.manifest.catalog!.tracks[0]))
        let pool = try algorithm.fingerprint(file: dataset.path(dataset.manifest.catalog!.tracks[1])).keys!
        let synthetic = try #require(model.redrawingKeys(from: pool, seed: 1))
        let (m, s) = (model.base as! HashFingerprint, synthetic.base as! HashFingerprint)
        #expect(s.times == m.times && s.duration == m.duration && s.step == m.step)
        #expect(Set(s.hashes).isSubset(of: Set(pool)) && s.hashes != m.hashes)
        #expect((model.redrawingKeys(from: pool, seed: 1)!.base as! HashFingerprint).hashes == s.hashes)
        #expect((model.redrawingKeys(from: pool, seed: 2)!.base as! HashFingerprint).hashes != s.hashes)
        let waveprint = try AlgorithmRegistry.algorithm("waveprint").fingerprint(sine(frequency: 440, duration: 3, sampleRate: 5512))
        #expect(waveprint.keys == nil && waveprint.redrawingKeys(from: pool, seed: 1) == nil)
    }

    /// A synthetic vector track keeps its model's times; its rows are unit vectors as like the real segments
    /// as the real tracks are like each other (mean inner product, mean direction, neighbour correlation).
    @Test func syntheticVectorsKeepTheirModelsTimingAndTheRealSegmentsStatistics() throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm("nafp-small")
        let prints = try dataset.manifest.catalog!.tracks.prefix(3).map { try algorithm.fingerprint(file: dataset.path($0)) }
        let real = prints.map { $0.base as! VectorFingerprint }, statistics = try #require(VectorStatistics(real))
        let synthetic = try #require(prints[0].drawingVectors(from: statistics, seed: 1)?.base as? VectorFingerprint)
        #expect(synthetic.times == real[0].times && synthetic.step == real[0].step && synthetic.duration == real[0].duration)
        #expect(synthetic.values != real[0].values && statistics.synthetic(like: real[0], seed: 1) == synthetic && statistics.synthetic(like: real[0], seed: 2) != synthetic)
        for r in synthetic.times.indices { #expect(abs(synthetic.row(r).reduce(0) { $0 + $1 * $1 } - 1) < 1e-4) }
        func meanProduct(_ a: VectorFingerprint, _ b: VectorFingerprint) -> Double {
            var sum = 0.0
            for i in a.times.indices { for j in b.times.indices { sum += Double(zip(a.row(i), b.row(j)).reduce(0) { $0 + $1.0 * $1.1 }) } }
            return sum / Double(a.times.count * b.times.count)
        }
        let betweenReal = meanProduct(real[0], real[2]), syntheticToReal = meanProduct(synthetic, real[2])
        #expect(abs(betweenReal - syntheticToReal) < 0.1, "real-real \(betweenReal), synthetic-real \(syntheticToReal)")
        let drawn = try #require(VectorStatistics((0..<12).map { statistics.synthetic(like: real[$0 % 3], seed: UInt64($0)) }))
        let cosine = zip(drawn.mean, statistics.mean).reduce(0) { $0 + $1.0 * $1.1 }
            / (drawn.mean.reduce(0) { $0 + $1 * $1 } * statistics.mean.reduce(0) { $0 + $1 * $1 }).squareRoot()
        #expect(cosine > 0.9 && statistics.neighbourCorrelation > 0.2, "mean direction \(cosine), ρ \(statistics.neighbourCorrelation)")
        #expect(abs(drawn.neighbourCorrelation - statistics.neighbourCorrelation) < 0.1, "ρ \(drawn.neighbourCorrelation) against \(statistics.neighbourCorrelation)")
        let hashes = try AlgorithmRegistry.algorithm("constellation").fingerprint(file: dataset.path(dataset.manifest.catalog!.tracks[0]))
        #expect(hashes.drawingVectors(from: statistics, seed: 1) == nil)
    }

    /// nafp-small's catalog grown to three times its size with synthetic vectors: its real tracks still found,
    /// its index three times as large, its synthetic prints not held (drawn again for verification).
    @Test func aVectorCatalogGrownWithSyntheticTracksStillFindsItsRealTracks() throws {
        var spec = BenchmarkSpec()
        spec.queriesPerLength = 8
        spec.negativesPerLength = 8
        let configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), [try AlgorithmRegistry.algorithm("nafp-small")], seed: 5, missing: .borrow),
                                                   spec: spec)
        let realHours = try Benchmark(configuration).indexer.buildCatalogs(configuration.algorithms, progress: ProgressReporter(.none)).catalogs[0].duration / 3600
        let points = try SyntheticScale(benchmark: configuration, hours: [realHours, 3 * realHours], length: 5).run()
        #expect(points.count == 2 && points[0].syntheticTracks == 0 && points[1].syntheticTracks >= 14)
        #expect(Double(points[1].indexBytes) > 2.5 * Double(points[0].indexBytes) && points[1].printBytes == points[0].printBytes,
                "\(points.map(\.indexBytes)) \(points.map(\.printBytes))")
        #expect(points.allSatisfy { $0.positives == 8 && $0.correct >= 6 }, "\(points.map(\.correct))")
        var sliced = SyntheticScale(benchmark: configuration, hours: [realHours], length: 5)
        sliced.slices = 2
        #expect { try sliced.run() } throws: { "\($0)".contains("cannot be split into slices") }
    }

    @Test func aCatalogGrownWithSyntheticTracksStillFindsItsRealTracks() throws {
        let dataset = try catalogCIDataset()
        var spec = BenchmarkSpec()
        spec.queriesPerLength = 8
        spec.negativesPerLength = 8
        let configuration = BenchmarkConfiguration(testSettings(dataset, [try AlgorithmRegistry.algorithm("constellation")], seed: 5, missing: .borrow),
                                                   spec: spec)
        let realHours = try Benchmark(configuration).indexer.buildCatalogs(configuration.algorithms, progress: ProgressReporter(.none)).catalogs[0].duration / 3600
        // With a condition that moves time: every positive cut 1 s later, found 1 s further into its track.
        let later = BenchmarkCondition(id: "skip-1s", title: "1 s later", stages: [StageSpec(SkipStage(1))])
        var scale = SyntheticScale(benchmark: configuration, hours: [realHours, 5 * realHours], length: 5)
        scale.conditions = [later]
        let rows = try scale.run(), points = rows.filter { $0.condition == "clean" }, skipped = rows.filter { $0.condition == "skip-1s" }
        #expect(rows.map(\.condition) == ["clean", "skip-1s", "clean", "skip-1s"])
        #expect(points.count == 2 && points[0].syntheticTracks == 0 && points[1].syntheticTracks >= 28)
        #expect(points[1].hours >= 5 * realHours && points[1].hours < 5 * realHours + 0.1)
        #expect(Double(points[1].indexBytes) > 3.5 * Double(points[0].indexBytes), "\(points.map(\.indexBytes))")
        // Clean queries find their real track among five times as many synthetic ones.
        #expect(points.allSatisfy { $0.positives == 8 && $0.correct >= 7 && $0.heldOutNegatives == 4 }, "\(points.map(\.correct))")
        // Judged where the skipped queries start, at the clean negatives' threshold: a skip the offsets ignored would find none.
        for (clean, degraded) in zip(points, skipped) {
            #expect(degraded.positives == 8 && degraded.correct >= 6, "\(skipped.map(\.correct))")
            #expect((degraded.hours, degraded.threshold, degraded.heldOutFalsePositives) == (clean.hours, clean.threshold, clean.heldOutFalsePositives))
        }
        // Asked for the larger size alone, the last column still holds the real catalog's threshold.
        let alone = try SyntheticScale(benchmark: configuration, hours: [5 * realHours], length: 5).run()
        #expect(alone[0].falsePositivesAtRealThreshold == points[1].falsePositivesAtRealThreshold && alone[0].threshold == points[1].threshold)
        // Built and searched as three slices, one at a time: the whole catalog's answers, a third of its prints held at once.
        var sliced = scale
        sliced.slices = 3
        let slicedPoints = try sliced.run()
        for (whole, parts) in zip(rows, slicedPoints) {
            #expect((parts.condition, parts.correct) == (whole.condition, whole.correct))
            #expect((parts.hours, parts.syntheticTracks, parts.correct, parts.threshold, parts.heldOutFalsePositives, parts.falsePositivesAtRealThreshold)
                    == (whole.hours, whole.syntheticTracks, whole.correct, whole.threshold, whole.heldOutFalsePositives, whole.falsePositivesAtRealThreshold))
            #expect(Double(parts.printBytes) < 0.6 * Double(whole.printBytes), "\(parts.printBytes) of \(whole.printBytes)")
        }

        // The report: a variant with two settings stays one field of scale.csv (16 columns in every row).
        var named = rows
        for i in named.indices { named[i].algorithm = "constellation@fanOut=5,queryShifts=1" }
        let folder = temporaryFolder()
        let md = try ScaleReport.write(named, length: 5, slices: 1, command: "fpbench scale", version: "test", to: folder)
        let lines = try String(contentsOf: folder.appendingPathComponent("scale.csv"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5 && lines[0].split(separator: ",").count == 16)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("\"constellation@fanOut=5,queryShifts=1\",") && $0.split(separator: ",").count == 17 }, "\(lines)")
        #expect(try LaTeXTablesTests.compile(folder.appendingPathComponent("tables"), labels: ["tab:scale"]).contains("skip-1s"))
        #expect(md.contains("| constellation@fanOut=5,queryShifts=1 | skip-1s | ") && md.contains("clean and degraded") && !FileManager.default.fileExists(atPath: folder.appendingPathComponent(OutputFolder.marker).path))

        var keyless = configuration
        keyless.algorithms = [try AlgorithmRegistry.algorithm("waveprint")]
        #expect { try SyntheticScale(benchmark: keyless, hours: [1], length: 5).run() } throws: { "\($0)".contains("no keys to redraw") }
    }
}
