import AudioIO
import DSP
import Evaluation
import Foundation

/// A passage of a catalog track heard again at another offset. Looping game music makes "right recording,
/// wrong offset" ambiguous for every algorithm and system alike: an answer that lands on another copy of the
/// query's passage found the music, not the wrong place in it. One rule, measured on the reference audio
/// alone, judges every row: the answer is a repeated passage when the track's audio at the answered offset
/// is the truth's again (`RepeatedPassages.similarity` at least `RepeatedPassages.threshold`).
public struct RepeatedPassage: Sendable, Codable, Equatable, Hashable {
    /// Index into `BenchmarkResults.catalog.tracks`.
    public var track: Int
    /// Where the query's passage starts (its time map's start when the condition moved time), in seconds.
    public var start: Double
    /// Where the answer put it.
    public var other: Double
    public var length: Double
    public var similarity: Double

    /// The two passages, without how alike they are.
    var passages: Passages { Passages(track: track, start: start, other: other, length: length) }
}

/// A wrong-offset answer's two passages of one track: the truth's and the answered one (offsets to the millisecond).
struct Passages: Hashable, Comparable {
    var track: Int, start: Double, other: Double, length: Double

    /// The truth's passage alone: what every answer elsewhere in its track is compared with.
    var truth: Passages { Passages(track: track, start: start, other: start, length: length) }

    static func < (a: Passages, b: Passages) -> Bool { (a.track, a.start, a.other, a.length) < (b.track, b.start, b.other, b.length) }
}

public enum RepeatedPassages {
    /// Two passages are one repeated when their spectrograms correlate at least this much (our choice: on 239
    /// pairs of 10 s windows drawn at random within catalog tracks none reached it; the 99th percentile was
    /// 0.63, the highest 0.78; a copy of a loop scores near 1).
    public static let threshold = 0.9
    /// The analysis: 8 kHz, 64 ms frames every 16 ms, the bins from 62 Hz to 3.5 kHz.
    static let sampleRate = 8000.0, stft = STFT(frameSize: 512, hop: 128, window: .hann), bins = 4..<225
    /// How far the answered offset may be from the copy it found: the benchmark's offset tolerance.
    static func lagFrames(_ tolerance: Double) -> Int { Int((tolerance * sampleRate / Double(stft.hop)).rounded()) }

    /// The rule, as the summary states it.
    public static let rule = String(format: "an answer naming the right recording at another offset is a repeated passage when the "
        + "track's audio there is the truth's again: their log spectrograms (8 kHz, 64 ms frames every 16 ms, 62 Hz-3.5 kHz, each "
        + "band's mean removed) correlate at %.2f or more at some shift within the offset tolerance", threshold)

    /// How alike two passages are: the largest Pearson correlation, over shifts of `other` by up to `lag`
    /// frames, of `truth`'s log spectrogram with as many frames of `other`'s, each band's mean removed (so a
    /// passage's timbre alone does not make it alike). `other` holds `lag` frames of margin on each side.
    public static func similarity(truth: [Float], other: [Float], lag: Int) -> Double? {
        Truth(truth).similarity(other: other, lag: lag)
    }

    /// The truth's passage analysed once, for every answered passage it is compared with.
    struct Truth {
        let rows: Int
        let centred: [Float]

        init(_ samples: [Float]) {
            let a = logSpectrogram(samples)
            rows = a.rows
            centred = centredNormalised(a.values[...], rows: a.rows, width: bins.count)
        }

        func similarity(other: [Float], lag: Int) -> Double? {
            let b = logSpectrogram(other)
            guard rows > 0, b.rows >= rows else { return nil }
            let shifts = (0...(b.rows - rows)).filter { abs($0 - lag) <= lag }
            return correlations(b, shifts: shifts).map(Double.init).max()
        }

        /// The correlations of the truth with `other`'s `rows` frames from each of `shifts` (consecutive), each as
        /// `centredNormalised` and a sum of products in order would make it, eight side by side: lane k holds
        /// one shift's sums, added in the same order as alone (the same bits, a pass for eight).
        func correlations(_ other: Matrix, shifts: [Int]) -> [Float] {
            let padded = other.rows + 8
            // Column by column, so a column's frames at eight shifts are eight floats in a row.
            var columns = [Float](repeating: 0, count: other.columns * padded)
            for r in 0..<other.rows { for c in 0..<other.columns { columns[c * padded + r] = other.values[r * other.columns + c] } }
            return stride(from: 0, to: shifts.count, by: 8).flatMap { first in
                eightCorrelations(columns, padded: padded, width: other.columns, from: shifts[first]).prefix(min(8, shifts.count - first))
            }
        }

        /// Lane k: the correlation at shift `first` + k, from `other`'s frames stored column by column.
        private func eightCorrelations(_ columns: [Float], padded: Int, width: Int, from first: Int) -> [Float] {
            var means = [SIMD8<Float>](repeating: .zero, count: width), squares = SIMD8<Float>.zero, products = SIMD8<Float>.zero
            let divisor = SIMD8<Float>(repeating: Float(rows))
            columns.withUnsafeBytes { frames in
                means.withUnsafeMutableBufferPointer { means in
                    centred.withUnsafeBufferPointer { truth in
                        func frame(_ r: Int, _ c: Int) -> SIMD8<Float> {
                            frames.loadUnaligned(fromByteOffset: 4 * (c * padded + first + r), as: SIMD8<Float>.self)
                        }
                        for r in 0..<rows { for c in 0..<width { means[c] += frame(r, c) / divisor } }
                        for r in 0..<rows {
                            for c in 0..<width {
                                let centred = frame(r, c) - means[c]
                                squares += centred * centred
                            }
                        }
                        let norm = squares.squareRoot(), scale = SIMD8<Float>(repeating: 1).replacing(with: norm, where: norm .> 0)
                        for r in 0..<rows {
                            for c in 0..<width { products += SIMD8(repeating: truth[r * width + c]) * ((frame(r, c) - means[c]) / scale) }
                        }
                    }
                }
            }
            return (0..<8).map { products[$0] }
        }
    }

    /// Log power in `bins`, one row per frame.
    static func logSpectrogram(_ samples: [Float]) -> Matrix {
        let frontEnd = FrameFrontEnd(stft: stft, columns: bins.count) { power, row in
            for (i, bin) in bins.enumerated() { row[row.startIndex + i] = log(1e-8 + power[bin]) }
        }
        return frontEnd.rows(samples)
    }

    /// Each column's mean removed, then scaled to unit length as a whole.
    static func centredNormalised(_ values: ArraySlice<Float>, rows: Int, width: Int) -> [Float] {
        // Row by row, column by column: each sum in the order of one pass over the values, without a remainder per value.
        var means = [Float](repeating: 0, count: width), centred = Array(values), squares: Float = 0
        let count = centred.count, divisor = Float(rows)
        means.withUnsafeMutableBufferPointer { means in
            centred.withUnsafeMutableBufferPointer { centred in
                for start in stride(from: 0, to: count, by: width) {
                    for c in 0..<min(width, count - start) { means[c] += centred[start + c] / divisor }
                }
                for start in stride(from: 0, to: count, by: width) {
                    for c in 0..<min(width, count - start) {
                        centred[start + c] -= means[c]
                        squares += centred[start + c] * centred[start + c]
                    }
                }
                let norm = sqrt(squares)
                if norm > 0 { for i in 0..<count { centred[i] /= norm } }
            }
        }
        return centred
    }

    /// The passage pairs of `r`'s wrong-offset answers, each once, in order: the top answer (what calibrated
    /// thresholds judge) and the first the documented threshold calls a match.
    static func pairs(_ r: BenchmarkResults) -> [Passages] {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        var pairs = Set<Passages>()
        for answer in r.answers where answer.failure == nil {
            guard let q = queries[answer.query], !q.negative else { continue }
            let start = answer.expectedOffset ?? q.start
            for top in [answer.top.first, answer.top.first(where: \.matched)].compactMap({ $0 })
            where r.catalog.tracks[top.track] == q.file && abs(top.offset - start) > r.spec.offsetTolerance {
                pairs.insert(Passages(track: top.track, start: milliseconds(start), other: milliseconds(top.offset), length: q.length))
            }
        }
        return pairs.sorted()
    }

    /// Those of `r`'s pairs whose passages are one repeated, read from `path(track)` at 8 kHz; each truth's
    /// passage is read and analysed once for all the answers that landed elsewhere in its track.
    public static func judge(_ r: BenchmarkResults, path: (String) -> String, threads: Int) -> [RepeatedPassage] {
        let lag = lagFrames(r.spec.offsetTolerance), margin = Double(lag * stft.hop) / sampleRate
        let truths = Dictionary(grouping: Self.pairs(r), by: \.truth).values.sorted { $0[0] < $1[0] }
        return parallelMap(truths.count, threads: threads) { i -> [RepeatedPassage] in
            let first = truths[i][0], file = path(r.catalog.tracks[first.track]), seconds = r.catalog.trackSeconds[first.track]
            guard first.start >= 0,
                  let read = try? AudioReader.read(file, sampleRate: sampleRate, window: TimeWindow(start: first.start, duration: first.length)) else { return [] }
            let truth = Truth(read.samples)
            return truths[i].compactMap { pair in
                guard pair.other - margin >= 0, pair.other + pair.length + margin <= seconds,
                      let other = try? AudioReader.read(file, sampleRate: sampleRate, window: TimeWindow(start: pair.other - margin, duration: pair.length + 2 * margin)),
                      let similarity = truth.similarity(other: other.samples, lag: lag), similarity >= threshold else { return nil }
                return RepeatedPassage(track: pair.track, start: pair.start, other: pair.other, length: pair.length,
                                       similarity: (similarity * 1000).rounded() / 1000)
            }
        }.joined().sorted { $0.passages < $1.passages }
    }

    /// The repeats of merged parts: those of their judgements the merged answers use (nil when a part was not judged).
    static func merged(_ parts: [BenchmarkResults], into r: BenchmarkResults) -> [RepeatedPassage]? {
        let judged = parts.compactMap(\.repeats)
        guard judged.count == parts.count else { return nil }
        let used = Set(pairs(r))
        return Set(judged.joined()).filter { used.contains($0.passages) }.sorted { $0.passages < $1.passages }
    }

    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

extension BenchmarkResults {
    /// Whether the top answer `match` to `query` (at `start`) landed on a judged repeat of its passage.
    func isRepeat(_ match: BenchmarkMatch, start: Double, length: Double) -> Bool {
        let key = Passages(track: match.track, start: RepeatedPassages.milliseconds(start), other: RepeatedPassages.milliseconds(match.offset), length: length)
        return repeats?.contains { $0.passages == key } ?? false
    }
}
