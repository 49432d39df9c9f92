import Foundation
import AudioIO
import DSP

/// The worked example of docs/algorithms.md, "Adding an algorithm": a 12-bin chroma per frame (the pitch-class
/// energy profile Chromaprint starts from), compared by mean cosine similarity at the best alignment.
public struct ChromaBaseline: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        public var sampleRate = 11_025.0
        public var frameSize = 4096
        public var hop = 1366
        public var lowestFrequency = 28.0
        public var highestFrequency = 3520.0
        public var matchThreshold = 0.9

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: frameSize, hop: hop) { return bad }
            if !(lowestFrequency > 0 && lowestFrequency < highestFrequency && highestFrequency <= sampleRate / 2) { return "0 < lowestFrequency < highestFrequency <= Nyquist" }
            if !(matchThreshold > 0 && matchThreshold <= 1) { return "matchThreshold must be above 0 and at most 1" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "chroma-baseline" }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { "Chroma baseline (the 'Adding an algorithm' example)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var minimumDuration: Double { Double(parameters.frameSize) / sampleRate }
    public var rawFigureName: String { "mean cosine similarity" }
    public var offsetResolution: Double? { Double(parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "Chromaprint: 11,025 Hz"),
            Parameter("frameSize", p.frameSize, source: "Chromaprint: frames of 4,096 samples"),
            Parameter("hop", p.hop, source: "Chromaprint: hop 1,366 (2/3 overlap, 124 ms)"),
            Parameter("window", "hann", source: "our choice: the usual window for spectral profiles"),
            Parameter("chroma", "12 pitch classes, bins \(p.lowestFrequency)-\(p.highestFrequency) Hz, A4 = 440 Hz, summed power",
                      source: "Chromaprint: 12 chroma bins from 28 to 3,520 Hz"),
            Parameter("similarity", "mean cosine over aligned frames, best frame offset",
                      source: "our choice: the simplest comparison that aligns in time"),
            Parameter("matchThreshold", p.matchThreshold, source: "our choice: chroma of unrelated music is far from orthogonal"),
        ])
    }

    public var frontEnd: FrameFrontEnd {
        let p = parameters
        // The FFT bins in range, in order, as runs of neighbours that share a pitch class.
        var runs: [(bins: Range<Int>, pitchClass: Int)] = []
        for k in 0...(p.frameSize / 2) {
            let f = Double(k) * p.sampleRate / Double(p.frameSize)
            guard f >= p.lowestFrequency, f <= p.highestFrequency else { continue }
            let midi = Int((12 * log2(f / 440) + 69).rounded()), pitchClass = ((midi % 12) + 12) % 12
            if let last = runs.last, last.bins.upperBound == k, last.pitchClass == pitchClass {
                runs[runs.count - 1].bins = last.bins.lowerBound..<(k + 1)
            } else {
                runs.append((k..<(k + 1), pitchClass))
            }
        }
        return FrameFrontEnd(stft: STFT(frameSize: p.frameSize, hop: p.hop, window: .hann), columns: 12) { [runs] power, row in
            power.withUnsafeBufferPointer { power in
                row.withUnsafeMutableBufferPointer { chroma in
                    // Each pitch class sums its bins in bin order.
                    for run in runs {
                        var sum = chroma[run.pitchClass]
                        for k in run.bins { sum += power[k] }
                        chroma[run.pitchClass] = sum
                    }
                }
            }
        }
    }

    public func rowBuilder(role: FingerprintRole) -> KeptRows<ChromaFingerprint> {
        let step = Double(parameters.hop) / parameters.sampleRate
        return KeptRows { chroma, duration in ChromaFingerprint(chroma: chroma, step: step, duration: duration) }
    }

    public func compare(query: ChromaFingerprint, reference: ChromaFingerprint) -> Comparison {
        let queryFrames = ChromaFrames(query), referenceFrames = ChromaFrames(reference)
        let best = bestAlignment(queryCount: query.subFingerprintCount, referenceCount: reference.subFingerprintCount) { q, r, length in
            (0..<length).reduce(0.0) { total, i in total + queryFrames.cosine(q + i, referenceFrames, r + i) } / Double(length)
        }
        guard let best else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        let score = min(1, max(0, best.score))
        return Comparison(score: score, offset: Double(best.shift) * query.step, rawFigure: best.score)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.score >= parameters.matchThreshold }
}

/// Twelve pitch-class energies per frame.
public struct ChromaFingerprint: Fingerprint, Equatable {
    public var chroma: [Float]
    public var step: Double
    public var duration: Double

    public var subFingerprintCount: Int { chroma.count / 12 }
    public var byteCount: Int { chroma.count * MemoryLayout<Float>.size }
}

/// A chroma fingerprint's frames in double precision with their squared norms, computed once per
/// comparison rather than once per frame pair.
struct ChromaFrames {
    let values: [Double]
    let squaredNorms: [Double]

    init(_ print: ChromaFingerprint) {
        values = print.chroma.map(Double.init)
        squaredNorms = (0..<print.subFingerprintCount).map { i in
            var sum = 0.0
            for c in 0..<12 { sum += Double(print.chroma[12 * i + c]) * Double(print.chroma[12 * i + c]) }
            return sum
        }
    }

    /// Cosine similarity of frame `i` with frame `j` of `other`: dot / sqrt(|a|² |b|²), exactly 1 for equal frames.
    func cosine(_ i: Int, _ other: ChromaFrames, _ j: Int) -> Double {
        var dot = 0.0
        for c in 0..<12 { dot += values[12 * i + c] * other.values[12 * j + c] }
        let aa = squaredNorms[i], bb = other.squaredNorms[j]
        return aa > 0 && bb > 0 ? dot / (aa * bb).squareRoot() : 0
    }
}
