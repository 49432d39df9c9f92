import AudioIO
import Degradation
import DSP
@testable import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// Panako and the quads: hashes that a change of speed, tempo or pitch leaves alone, and matching along
/// a time line that finds the change.
@Suite struct RobustAlgorithmTests {
    /// A catalog-ci music track (Drascula's soundtrack), for tests that need many event points.
    static let music = repositoryRoot.appendingPathComponent("Datasets/catalog-ci/audio/drascula/track11.ogg").path

    @Test func tripletHashFieldsCoverThirtyBitsWithoutOverlap() {
        let fields = [TripletHash.timeRatio, TripletHash.orderings, TripletHash.coarseFrequency, TripletHash.firstGap, TripletHash.secondGap]
        for (i, a) in fields.enumerated() {
            for b in fields[(i + 1)...] { #expect(a.mask & b.mask == 0) }
        }
        #expect(fields.reduce(UInt32(0)) { $0 | $1.mask } == (1 << TripletHash.keyBits) - 1)
    }

    /// The same three event points, their times scaled and their bins moved, hash the same (but for f1's
    /// coarse field when the move crosses a 32-bin step).
    @Test func aTripletsHashIgnoresTimeScaleAndPitchShift() {
        let points = [Peak(frame: 100, bin: 200, value: 3), Peak(frame: 110, bin: 240, value: 5), Peak(frame: 130, bin: 225, value: 1)]
        let hash = TripletHash.hash(points[0], points[1], points[2])
        func moved(scale: Int, shift: Int) -> UInt32 {
            let p = points.map { Peak(frame: 1000 + ($0.frame - 100) * scale, bin: $0.bin + shift, value: $0.value * 2) }
            return TripletHash.hash(p[0], p[1], p[2])
        }
        let invariant = ~TripletHash.coarseFrequency.mask
        for scale in [1, 2, 3] {
            for shift in [-7, 0, 7] { #expect(moved(scale: scale, shift: shift) & invariant == hash & invariant, "×\(scale), \(shift) bins") }
        }
        #expect(moved(scale: 1, shift: 7) == hash, "200 and 207 lie in the same 32-bin step")
        #expect(moved(scale: 1, shift: 32) & TripletHash.coarseFrequency.mask != hash & TripletHash.coarseFrequency.mask)
        // The neighbours a lookup tries: the time ratio ± 2, clipped, nothing else changed.
        let tried = TripletHash.neighbours(of: hash, range: 2)
        #expect(tried.count == 5 && tried.allSatisfy { $0 & ~TripletHash.timeRatio.mask == hash & ~TripletHash.timeRatio.mask })
        #expect(TripletHash.neighbours(of: hash & ~TripletHash.timeRatio.mask, range: 2).count == 3)
    }

    /// A quad's hash is where C and D lie in the box A and B span: doubling every time difference and
    /// every frequency difference (a slower, lower rendition) leaves it; moving D does not. The range
    /// search posts a reference under every cell its tolerance box touches and finds it from each.
    @Test func aQuadsHashIgnoresScaleAndTheRangeSearchFindsItsNeighbours() {
        let a = Peak(frame: 10, bin: 40, value: 1), b = Peak(frame: 310, bin: 140, value: 1)
        let c = Peak(frame: 100, bin: 90, value: 2), d = Peak(frame: 200, bin: 60, value: 3)
        func scaled(_ p: Peak) -> Peak { Peak(frame: 500 + 2 * (p.frame - a.frame), bin: 20 + 2 * (p.bin - a.bin), value: p.value) }
        let hash = Quads.hash(a, b, c, d)
        #expect(Quads.hash(scaled(a), scaled(b), scaled(c), scaled(d)) == hash)
        #expect(Quads.coordinates(hash) == [76, 128, 162, 51])  // (90 / 300, 50 / 100, 190 / 300, 20 / 100) · 256
        #expect(Quads.hash(a, b, c, Peak(frame: 250, bin: 60, value: 3)) != hash)
        let search = QuadNeighbourhood(tolerance: 3)
        var posted: [UInt32] = [], looked: [UInt32] = []
        search.postedKeys(hash, into: &posted)
        #expect(Set(posted).count == posted.count && (1...16).contains(posted.count))
        for shift in [-3, 0, 3] {
            let near = Quads.coordinates(hash).map { UInt32($0 + shift) }.reduce(UInt32(0)) { $0 << 8 | $1 }
            looked.removeAll()
            search.lookedUpKeys(near, into: &looked)
            #expect(Quads.agree(near, hash, tolerance: 3) && posted.contains(looked[0]), "shifted by \(shift)")
        }
    }

    /// A tone a semitone up peaks 85 / 12 ≈ 7 bins higher on the log-frequency axis, low or high, within
    /// half an FFT bin (7.8 Hz: 2.5 log bins at 262 Hz, 0.2 at 3.5 kHz) for each of the two peaks.
    @Test func aSemitoneMovesALogFrequencyPeakBySevenBins() {
        let mapper = LogFrequencyMapper(lowest: 110, bandsPerOctave: 85, bandCount: 510, fftSize: 2048, sampleRate: 16_000)
        let fft = RealFFT(size: 2048), window = WindowFunction.hann.coefficients(size: 2048)
        func peak(_ frequency: Double) -> Int {
            let tone = (0..<2048).map { Float(sin(2 * .pi * frequency * Double($0) / 16_000)) }
            var power: [Float] = []
            tone.withUnsafeBufferPointer { fft.powerSpectrum($0, window: window, into: &power) }
            var row = [Float](repeating: 0, count: 510)[...]
            mapper.map(power, into: &row)
            return row.indices.max { row[$0] < row[$1] }!
        }
        for frequency in [261.6, 440.0, 1318.5, 3520.0] {
            let expected = 85 * log2(frequency / 110), halfBin = 85 * log2(1 + 16_000 / 2048 / 2 / frequency) + 0.5
            #expect(abs(Double(peak(frequency)) - expected) <= halfBin, "\(frequency) Hz at bin \(peak(frequency)), expected \(expected)")
            #expect(abs(Double(peak(frequency * pow(2, 1.0 / 12)) - peak(frequency)) - 85.0 / 12) <= 2 * halfBin, "\(frequency) Hz")
        }
    }

    /// Hits along a line of slope 0.05 among scattered ones: the line is found, with its time factor,
    /// and the scattered hits are not counted.
    @Test func theTimeLineIsFoundAmongScatteredHits() {
        let noise = SeededNoise(seed: 11)
        var hits: [TimeHit] = []
        for i in 0..<200 {
            let time = Double(i * 5)
            hits.append(TimeHit(id: Int32(i), queryTime: Int32(time), referenceTime: Int32(300 + time * 1.05)))
        }
        for i in 0..<100 {
            let time = noise.unit() * 1000, reference = noise.unit() * 5000
            hits.append(TimeHit(id: Int32(200 + i), queryTime: Int32(time), referenceTime: Int32(reference)))
        }
        hits.sort { ($0.queryTime, $0.referenceTime) < ($1.queryTime, $1.referenceTime) }
        let matcher = TimeLineMatcher(minimumHits: 10, tolerance: 2, timeFactors: 0.8...1.2)
        let (line, aligned) = try! #require(matcher.align(hits[...]))
        #expect(abs(line.timeFactor - 1.05) < 0.005 && abs(line.intercept - 300) <= 2, "\(line)")
        #expect((200...205).contains(aligned), "\(aligned) aligned")
        // A line steeper than the factors allowed is not found: at most a chance few of its hits line up.
        let steep = (0..<50).map { i in TimeHit(id: Int32(i), queryTime: Int32(i * 5), referenceTime: Int32(i * 8)) }
        #expect((matcher.align(steep[...])?.aligned ?? 0) <= 3)
    }

    /// The densest two adjacent bins, found from the bins the values fill, are those a scan over every pair
    /// of bins finds (the first on a tie), on sparse and on crowded histograms; the counts are left zero
    /// for the next use. (The coarse line search and the alignment bound count their hits this way.)
    @Test func theDensestPairOfBinsIsTheOneAScanOverEveryPairFinds() {
        let noise = SeededNoise(seed: 5)
        var scratch = BinScratch()  // one for every count, as the line search keeps one
        for (values, binCount) in [(3, 4), (20, 5_000), (500, 40), (2_000, 2_000)] {
            for _ in 0..<20 {
                let drawn = (0..<values).map { _ in 100 + noise.integer(below: binCount - 1) }, smallest = drawn.min()!
                var dense = [Int32](repeating: 0, count: binCount)
                for value in drawn { dense[value - smallest] += 1 }
                var scanned = (first: 0, count: Int32(0))
                for b in 0..<(binCount - 1) where dense[b] + dense[b + 1] > scanned.count { scanned = (b, dense[b] + dense[b + 1]) }
                let found = scratch.densestPair(drawn.count, lastBin: drawn.max()! - smallest) { drawn[$0] - smallest }
                #expect(found.first == scanned.first && found.count == scanned.count, "\(values) values in \(binCount) bins: \(found), a scan \(scanned)")
                #expect(scratch.counts.allSatisfy { $0 == 0 })
            }
        }
    }

    /// The alignment bound's rounding without a libm call is `Int32(x.rounded())`: halves away from zero,
    /// the largest double below a half, negatives, integers and random products of the search's size.
    @Test func roundingHalfAwayFromZeroIsTheLibrarys() {
        let noise = SeededNoise(seed: 11)
        let below = 0.5.nextDown
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, below, -below, 1 + below, -1 - below, 3, -3, 1e6 + 0.5, -1e6 - 0.5]
        values += (0..<20_000).map { _ in (noise.unit() - 0.5) * 0.4 * Double(noise.integer(below: 100_000)) }
        for x in values { #expect(roundedHalfAway(x) == Int32(x.rounded()), "\(x)") }
    }

    /// A reference located from its slot of positions is the one the binary search over every start finds:
    /// empty references, references shorter and longer than a slot, and positions past the end.
    @Test func aReferenceLocatedFromItsSlotIsTheSearchedOne() {
        let noise = SeededNoise(seed: 12)
        for _ in 0..<20 {
            var layout = ReferenceLayout()
            for _ in 0..<noise.integer(below: 40) { _ = layout.add(length: [0, 1, 700, 1_024, 5_000][noise.integer(below: 5)]) }
            let read = ReferenceLayout(starts: layout.starts)
            for position in (0..<2_000).map({ _ in UInt32(noise.integer(below: Int(layout.end) + 3_000)) }) + [0, layout.end] {
                #expect(layout.locate(position) == layout.search(position) && read.locate(position) == layout.search(position), "\(position) in \(layout.starts)")
            }
        }
    }

    /// The radix sort sorts: below and above the size where it stops comparing, with digits that never
    /// change (skipped passes) and with every bit in use.
    @Test func theRadixSortSorts() {
        let noise = SeededNoise(seed: 13)
        for count in [0, 1, 2, radixSortFloor, radixSortFloor + 1, 50_000] {
            let masks: [UInt64] = [.max, 0xFFFF_0000_FFFF, 0x3FFF_FFFF << 32 | 7]
            for mask in masks {
                func draw() -> UInt64 {
                    let high = UInt64(noise.integer(below: 1 << 31)) << 33, low = UInt64(noise.integer(below: 1 << 31)) << 2
                    return (high ^ low ^ UInt64(noise.integer(below: 4))) & mask
                }
                let values = (0..<count).map { _ in draw() }
                var sorted = values
                radixSort(&sorted, bits: 64)
                #expect(sorted == values.sorted(), "\(count) keys, mask \(String(mask, radix: 16))")
            }
        }
    }

    /// The quads' range search without arrays: two hashes agree exactly when every coordinate (a byte)
    /// lies within the tolerance, the edges included; a query quad's cell key is its four coordinates
    /// divided by the cell, 5 bits each, and among the cells its reference neighbours are posted in.
    @Test func quadsAgreeCoordinateByCoordinate() {
        let noise = SeededNoise(seed: 29)
        let neighbourhood = QuadNeighbourhood(tolerance: 3)
        var agreed = 0
        for _ in 0..<2_000 {
            let a = UInt32(noise.integer(below: 1 << 31)) << 1 | UInt32(noise.integer(below: 2))
            // Each coordinate moved by -4 ... 4 (kept within a byte): agreement is decided at the edge.
            let moves = (0..<4).map { _ in noise.integer(below: 9) - 4 }
            let bytes = (0..<4).map { i in min(255, max(0, Quads.coordinate(a, i) + moves[i])) }
            let b = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let within = (0..<4).allSatisfy { abs(Quads.coordinate(a, $0) - bytes[$0]) <= 3 }
            #expect(Quads.agree(a, b, tolerance: 3) == within)
            #expect(Quads.coordinates(b) == bytes)
            var looked: [UInt32] = [], posted: [UInt32] = []
            neighbourhood.lookedUpKeys(a, into: &looked)
            #expect(looked == [(0..<4).reduce(UInt32(0)) { $0 << 5 | UInt32(Quads.coordinate(a, $1) >> 3) }])
            neighbourhood.postedKeys(b, into: &posted)
            if within { #expect(posted.contains(looked[0])) }
            agreed += within ? 1 : 0
        }
        #expect(agreed > 300 && agreed < 1_700, "both sides of the edge drawn: \(agreed) of 2,000 agreed")
    }

    /// Panako 2.1's own line (`PanakoStrategy.query`): through the commonest time difference of the first
    /// and of the last fifth of the hits. It finds a flat line among scattered hits as ours does; when a
    /// tempo change leaves no difference repeated, a tie goes to the smallest, so one stray hit early on
    /// draws the line through itself (ours still finds the line); and its factor, 1 / (1 - slope), must
    /// lie strictly within the range, so a slope of 0.2 (factor 1.25 by its formula) is refused.
    @Test func panakosTwoPointLineAsItsReleaseDrawsIt() {
        let ours = TimeLineMatcher(minimumHits: 10, tolerance: 2, timeFactors: 0.8...1.2)
        var release = ours
        release.fit = .twoPoint
        func sorted(_ hits: [TimeHit]) -> [TimeHit] { hits.sorted { ($0.queryTime, $0.referenceTime) < ($1.queryTime, $1.referenceTime) } }
        func hits(_ count: Int, id: Int = 0, query: (Int) -> Int, reference: (Int) -> Int) -> [TimeHit] {
            (0..<count).map { TimeHit(id: Int32(id + $0), queryTime: Int32(query($0)), referenceTime: Int32(reference($0))) }
        }
        let flat = sorted(hits(100, query: { $0 * 3 }, reference: { $0 * 3 + 100 }) + hits(20, id: 100, query: { $0 * 15 }, reference: { $0 * 16 + 500 }))
        let found = release.align(flat[...])
        #expect(found?.line == TimeLine(slope: 0, intercept: 100) && found?.aligned == 100, "\(String(describing: found))")
        // Slope 0.1: every difference once. A stray hit with a smaller difference among the first fifth wins the tie.
        let tempo = hits(60, query: { $0 * 10 }, reference: { $0 * 11 + 40 })
        let stray = sorted(tempo + [TimeHit(id: 99, queryTime: 25, referenceTime: 30)])
        #expect(ours.align(stray[...])?.aligned == 60)
        #expect((release.align(stray[...])?.aligned ?? 0) <= 2, "\(String(describing: release.align(stray[...])))")
        #expect(release.align(tempo[...]).map { abs($0.line.slope - 0.1) < 1e-9 && $0.aligned == 60 } == true)
        let steep = hits(60, query: { $0 * 100 }, reference: { $0 * 119 })
        #expect(release.align(steep[...]) == nil && ours.align(steep[...])?.aligned == 60)
    }

    /// Panako 2.1's match filters: the hits on the line must span 5 s of the query and fall in a fifth of
    /// the whole seconds they span in the reference (counted from the first, truncated; the span rounded up).
    @Test func panakosMatchFiltersCountSecondsAsItsReleaseDoes() {
        let filters = MatchFilters(seconds: 5, shareOfSeconds: 0.2, step: 1.0 / 128)
        func line(_ frames: [Int]) -> [TimeHit] { frames.map { TimeHit(id: Int32($0), queryTime: Int32($0), referenceTime: Int32($0 + 64)) } }
        #expect(!filters.pass(line(Array(stride(from: 0, through: 512, by: 16)))))     // 4 s of the query
        #expect(filters.pass(line(Array(stride(from: 0, through: 768, by: 16)))))      // 6 s, hits in each
        #expect(filters.pass(line([0, 16, 32, 700, 768])))                             // 3 of 6 seconds
        #expect(!filters.pass(line([0, 16, 32, 1536])))                                // 2 of 12 seconds: 0.17
    }

    /// The release's matching on real music, through a variant: a clean 10 s excerpt is found at its place
    /// with the hits counted as score; a 4 s one is refused by the 5 s filter, where ours finds it.
    @Test func panakoWithTheReleasesMatchingRefusesAShortQuery() throws {
        let ours = try AlgorithmRegistry.algorithm("panako")
        let release = try AlgorithmRegistry.algorithm("panako@lineFit=twoPoint,lineScore=hits,minimumMatchSeconds=5,minimumShareOfSecondsWithHits=0.2")
        let refused = #expect(throws: VariantError.self) { try AlgorithmRegistry.algorithm("panako@lineFit=straight") }
        #expect(refused?.description.contains("lineFit=straight: one of histogram, twoPoint") == true, "\(String(describing: refused))")
        for algorithm in [ours, release] {
            let catalog = Catalog(algorithm: algorithm)
            catalog.add(try algorithm.fingerprint(file: Self.music), name: "track11")
            for seconds in [10.0, 4] {
                let excerpt = try AudioReader.read(Self.music, sampleRate: algorithm.sampleRate, window: TimeWindow(start: 31.3, duration: seconds))
                let top = try catalog.search(try algorithm.fingerprint(excerpt, role: .query)).first
                if algorithm.identifier == ours.identifier || seconds == 10 {
                    #expect(top.map { $0.reference == "track11" && abs($0.comparison.offset - 31.3) <= 0.1 } == true, "\(algorithm.identifier), \(seconds) s: \(String(describing: top))")
                } else {
                    #expect(top == nil, "\(algorithm.identifier), \(seconds) s: \(String(describing: top))")
                }
                if algorithm.identifier == release.identifier, let top {
                    #expect(top.comparison.score == top.comparison.rawFigure / (top.comparison.rawFigure + 10))
                }
            }
        }
    }

    /// Real music played 5 % fast (pitch with it), 10 % slow with the pitch kept, and a semitone up:
    /// Panako and the quads find each excerpt at its place with the time factor, through their index and
    /// by brute force.
    /// Constellation, whose hashes hold absolute frequencies and time differences, does not find the faster one.
    @Test(arguments: ["speed 1.05", "tempo 0.9", "pitch +1"])
    func aChangedExcerptIsFoundWithItsTimeFactor(name: String) throws {
        let changes: [String: any Degradation] = ["speed 1.05": Speed(factor: 1.05), "tempo 0.9": Tempo(factor: 0.9), "pitch +1": Pitch(semitones: 1)]
        let change = try #require(changes[name])
        let robust = try ["panako", "quads"].map(AlgorithmRegistry.algorithm), constellation = try AlgorithmRegistry.algorithm("constellation")
        let start = 31.3, expectedFactor = 1 / change.timeMap.scale
        for algorithm in robust + (change is Speed ? [constellation] : []) {
            let catalog = Catalog(algorithm: algorithm)
            catalog.add(try algorithm.fingerprint(file: Self.music), name: "track11")
            catalog.add(try algorithm.fingerprint(file: repositoryRoot.appendingPathComponent("Datasets/catalog-ci/audio/drascula/track10.ogg").path), name: "track10")
            let excerpt = try AudioReader.read(Self.music, sampleRate: algorithm.sampleRate, window: TimeWindow(start: start, duration: 10))
            let query = try algorithm.fingerprint(change.apply(excerpt, random: SeededNoise(seed: 1)), role: .query)
            let top = try catalog.search(query).first
            if algorithm.identifier != "constellation" {
                let found = try #require(top, "\(change.record)")
                #expect(found.reference == "track11" && abs(found.comparison.offset - start) <= 0.1, "\(algorithm.identifier), \(change.record): \(found)")
                #expect(abs((found.comparison.timeFactor ?? 0) - expectedFactor) < 0.01, "\(algorithm.identifier), \(change.record): \(found)")
                #expect(try catalog.search(query, useIndex: false).first?.reference == "track11")
            } else {
                #expect(top.map { $0.reference != "track11" || abs($0.comparison.offset - start) > 0.5 } ?? true, "\(change.record): \(String(describing: top))")
            }
        }
    }
}
