import AudioIO
import DSP
@testable import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

@Suite struct ModernAlgorithmTests {
    /// Not the quads: 9 reference quads a second leave one of the four 4 s bird crops with none in
    /// common (they are tested on music, RobustAlgorithmTests).
    static let modern = ["waveprint", "constellation", "haitsma-kalker", "panako"]

    /// A crop at a seeded offset (not on any frame grid) is found at that offset, within one hop.
    /// Waveprint's bands stop at 2 kHz, below most of the finch's song (68 % of its energy is above
    /// 2,756 Hz), so it is held to the storm-petrels, whose calls sit in its bands.
    @Test(arguments: [("constellation", 256 / 11_025.0), ("haitsma-kalker", 64 / 5512.0), ("waveprint", 64 / 5512.0), ("panako", 128 / 16_000.0)] as [(String, Double)])
    func aSeededCropIsFoundAtItsOffset(identifier: String, hop: Double) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let noise = SeededNoise(seed: 2026)
        let recordings = identifier == "waveprint" ? Array(RealRecording.all[2...]) : RealRecording.all
        for recording in recordings {
            let offset = 0.5 + 4 * noise.unit()  // somewhere in [0.5, 4.5) s of the 9 s reference
            let query = try recording.crop(algorithm, offset: offset)
            let own = algorithm.compare(query: query, reference: try recording.reference(algorithm))
            #expect(abs(own.offset - offset) <= hop, "\(recording) at \(offset): \(own)")
            #expect(algorithm.isMatch(own), "\(recording): \(own)")
            for other in RealRecording.all where other.file != recording.file {
                #expect(algorithm.compare(query: query, reference: try other.reference(algorithm)).score < own.score)
            }
        }
    }

    /// Unrelated recordings (a finch against a storm-petrel): the hashing algorithms score near 0, not the
    /// AFA's 0.5; Haitsma-Kalker's bit-error rate stays near 0.5 (measured 0.44-0.48).
    /// Waveprint's index counts the tables that found each catalog image with a tally emptied per query
    /// image: its counts are a dictionary's, through growth and thousands of emptyings.
    @Test func thePositionTallyCountsAsADictionary() {
        let noise = SeededNoise(seed: 14)
        var tally = PositionTally()
        for round in 0..<3_000 {
            tally.empty()
            var expected: [UInt32: Int] = [:]
            for _ in 0..<(round % 7 == 0 ? 3_000 : 40) {
                let position = UInt32(noise.integer(below: round % 2 == 0 ? 500 : 4_000_000_000))
                expected[position, default: 0] += 1
                #expect(tally.count(position) == expected[position]!)
            }
        }
    }

    @Test func unrelatedRecordingsScoreNearChance() throws {
        let pairs = [(RealRecording.all[0], RealRecording.all[2]), (RealRecording.all[3], RealRecording.all[1])]
        for (a, b) in pairs {
            for identifier in ["constellation", "waveprint"] {
                let algorithm = try AlgorithmRegistry.algorithm(identifier)
                let result = algorithm.compare(query: try a.crop(algorithm, offset: 2), reference: try b.reference(algorithm))
                #expect(result.score < 0.05, "\(identifier) \(a) vs \(b): \(result)")
                #expect(!algorithm.isMatch(result))
            }
            let hk = try AlgorithmRegistry.algorithm("haitsma-kalker")
            let result = hk.compare(query: try a.crop(hk, offset: 2), reference: try b.reference(hk))
            #expect((0.4...0.5).contains(result.rawFigure), "BER \(result.rawFigure)")
            #expect(!hk.isMatch(result))
        }
    }

    /// Both layouts: fields that never overlap and leave no gap, and every value at the edges of each field back as packed.
    @Test(arguments: [(PeakPairHash.audfprint, 20, [0, 1, 128, 255], [-31, -1, 0, 1, 31], [2, 17, 63]),
                      (PeakPairHash.wang, 32, [0, 1, 500, 1023], [-500, -1, 0, 1, 400], [2, 63, 4095])])
    func peakPairHashFieldsRoundTripAndNeverOverlap(hash: PeakPairHash, bits: Int, bins: [Int], deltas: [Int], times: [Int]) {
        let fields = hash.fields
        for (i, a) in fields.enumerated() {
            for b in fields[(i + 1)...] { #expect(a.mask & b.mask == 0) }
        }
        #expect(hash.bits == bits && fields.reduce(UInt64(0)) { $0 | UInt64($1.mask) } == (1 << UInt64(bits)) - 1)  // no gaps
        for f1 in bins {
            for df in deltas where hash.target.holds(hash.dfBias.map { df + $0 } ?? f1 + df) {
                for dt in times {
                    let back = hash.unpack(hash.pack(f1: f1, df: df, dt: dt))
                    #expect(back.f1 == f1 && back.df == df && back.dt == dt)
                }
            }
        }
    }

    @Test(arguments: modern) func catalogSearchRanksAsBruteForceDoes(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let catalog = Catalog(algorithm: algorithm)
        for recording in RealRecording.all { catalog.add(try recording.reference(algorithm), name: recording.file) }
        for recording in RealRecording.all {
            let query = try recording.crop(algorithm, offset: 1.7)
            let indexed = try catalog.search(query)
            let brute = try catalog.search(query, useIndex: false)
            // The index verifies around its own best offset: the top answer is brute force's, offsets equal
            // up to rounding. (A weak, spurious match further down may be verified at another offset.)
            let top = try #require(indexed.first), bruteTop = try #require(brute.first)
            #expect(top.reference == bruteTop.reference && top.comparison.score == bruteTop.comparison.score, "\(recording)")
            #expect(abs(top.comparison.offset - bruteTop.comparison.offset) < 1e-9, "\(recording)")
            if identifier != "waveprint" || recording.file.contains("petrel") {
                #expect(indexed.first?.reference == recording.file)
            }
        }
        #expect(catalog.byteCount > 0 && catalog.duration == 36)
    }

    @Test(arguments: [1, 15, 37, 700]) func theSlidingMaximumAndTheLargestValueEqualTheNaiveOnes(count: Int) {
        let x = SeededNoise(seed: 4).gaussian(count: count, sigma: 1)
        var scratch: [Float] = []
        for radius in [0, 1, 3, 7, 8, 10, 25, 40, 51] {
            var out = [Float](repeating: 0, count: x.count)
            x.withUnsafeBufferPointer { slidingMaximum($0.baseAddress!, into: &out, count: x.count, radius: radius, scratch: &scratch) }
            let naive = x.indices.map { i in x[max(0, i - radius)...min(x.count - 1, i + radius)].max()! }
            #expect(out == naive, "radius \(radius)")
        }
        for end in [0, 1, 16, 17, count] where end <= count {
            x.withUnsafeBufferPointer { #expect(largest(of: UnsafeBufferPointer(rebasing: $0[..<end])) == (x[..<end].max() ?? -.infinity)) }
        }
    }

    @Test func topCoefficientsAreTheLargestMagnitudesLargestFirst() {
        let x = SeededNoise(seed: 8).gaussian(count: 4096, sigma: 1) + [0, 0, 5, -5]
        let top = topCoefficients(x, count: 200)
        let expected = x.indices.sorted { abs(x[$0]) != abs(x[$1]) ? abs(x[$0]) > abs(x[$1]) : $0 < $1 }.prefix(200)
        #expect(top.map(\.index) == Array(expected))
        #expect(topCoefficients(x, count: 200, ranked: false).map(\.index).sorted() == expected.sorted())
    }

    @Test func minHashPermutationsDependOnlyOnTheSeed() {
        let a = MinHashPermutations(count: 3, length: 64, seed: 7)
        #expect(a.order == MinHashPermutations(count: 3, length: 64, seed: 7).order)
        #expect(a.order != MinHashPermutations(count: 3, length: 64, seed: 8).order)
        #expect(Set(a.order[0..<64]) == Set((0..<64).map(UInt16.init)))  // each is a permutation
    }
}
