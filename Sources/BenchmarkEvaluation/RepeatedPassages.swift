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
        let a = logSpectrogram(truth), b = logSpectrogram(other)
        guard a.rows > 0, b.rows >= a.rows else { return nil }
        let width = bins.count, centred = centredNormalised(a.values, rows: a.rows, width: width)
        return (0...(b.rows - a.rows)).filter { abs($0 - lag) <= lag }.map { shift in
            let window = centredNormalised(Array(b.values[(shift * width)..<((shift + a.rows) * width)]), rows: a.rows, width: width)
            return Double(zip(centred, window).reduce(Float(0)) { $0 + $1.0 * $1.1 })
        }.max()
    }

    /// Log power in `bins`, one row per frame.
    static func logSpectrogram(_ samples: [Float]) -> Matrix {
        let frontEnd = FrameFrontEnd(stft: stft, columns: bins.count) { power, row in
            for (i, bin) in bins.enumerated() { row[row.startIndex + i] = log(1e-8 + power[bin]) }
        }
        return frontEnd.rows(samples)
    }

    /// Each column's mean removed, then scaled to unit length as a whole.
    static func centredNormalised(_ values: [Float], rows: Int, width: Int) -> [Float] {
        // Row by row, column by column: each sum in the order of one pass over the values, without a remainder per value.
        let rowStarts = stride(from: 0, to: values.count, by: width)
        var means = [Float](repeating: 0, count: width), centred = values, squares: Float = 0
        for start in rowStarts { for c in 0..<min(width, values.count - start) { means[c] += values[start + c] / Float(rows) } }
        for start in rowStarts {
            for c in 0..<min(width, values.count - start) {
                centred[start + c] -= means[c]
                squares += centred[start + c] * centred[start + c]
            }
        }
        let norm = sqrt(squares)
        return norm > 0 ? centred.map { $0 / norm } : centred
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

    /// Those of `r`'s pairs whose passages are one repeated, read from `path(track)` at 8 kHz.
    public static func judge(_ r: BenchmarkResults, path: (String) -> String, threads: Int) -> [RepeatedPassage] {
        let lag = lagFrames(r.spec.offsetTolerance), margin = Double(lag * stft.hop) / sampleRate
        let pairs = Self.pairs(r)
        return parallelMap(pairs.count, threads: threads) { i -> RepeatedPassage? in
            let pair = pairs[i]
            let file = path(r.catalog.tracks[pair.track]), seconds = r.catalog.trackSeconds[pair.track]
            guard pair.start >= 0, pair.other - margin >= 0, pair.other + pair.length + margin <= seconds,
                  let truth = try? AudioReader.read(file, sampleRate: sampleRate, window: TimeWindow(start: pair.start, duration: pair.length)),
                  let other = try? AudioReader.read(file, sampleRate: sampleRate, window: TimeWindow(start: pair.other - margin, duration: pair.length + 2 * margin)),
                  let similarity = Self.similarity(truth: truth.samples, other: other.samples, lag: lag), similarity >= threshold else { return nil }
            return RepeatedPassage(track: pair.track, start: pair.start, other: pair.other, length: pair.length,
                                   similarity: (similarity * 1000).rounded() / 1000)
        }.compactMap { $0 }
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
