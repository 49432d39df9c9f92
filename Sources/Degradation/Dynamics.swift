import AudioIO
import DSP
import Foundation

/// A level change of `decibels` (positive louder); samples are not limited, so a later stage may clip.
public struct Gain: Degradation {
    public var decibels: Double
    public init(decibels: Double) { self.decibels = decibels }
    public var record: DegradationRecord { DegradationRecord("gain", ["dB": format(decibels)]) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        let factor = Float(pow(10, decibels / 20))
        return Audio(samples: audio.samples.map { $0 * factor }, sampleRate: audio.sampleRate)
    }
}

/// Hard clipping, as an overdriven broadcast chain or a cheap recorder does: every sample beyond ±level
/// is cut to it. The level is given in dBFS, or as the share of samples to clip (the level is then the
/// magnitude that exactly that share exceeds).
public struct Clipping: Degradation {
    public enum Level: Sendable, Equatable {
        case dBFS(Double)
        case share(Double)
    }
    public var level: Level
    public init(level: Level) { self.level = level }

    public var record: DegradationRecord {
        switch level {
        case .dBFS(let d): return DegradationRecord("clipping", ["level_dBFS": format(d)])
        case .share(let s): return DegradationRecord("clipping", ["clipped_share": format(s)])
        }
    }

    /// The magnitude samples are cut to.
    func threshold(_ samples: [Float]) -> Float {
        switch level {
        case .dBFS(let d): return Float(pow(10, d / 20))
        case .share(let share):
            let magnitudes = samples.map(abs).sorted(by: >)
            let clipped = Int((share * Double(magnitudes.count)).rounded())
            guard clipped > 0 else { return .infinity }
            return clipped < magnitudes.count ? magnitudes[clipped] : 0
        }
    }

    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        let t = threshold(audio.samples)
        return Audio(samples: audio.samples.map { min(t, max(-t, $0)) }, sampleRate: audio.sampleRate)
    }
}

/// A feed-forward dynamic-range compressor (a broadcast chain's): the level follows the signal's
/// magnitude with separate attack and release times; above `threshold` dBFS, each dB over it comes out
/// as 1/`ratio` dB. In steady state a tone `x` dB over the threshold leaves it `x / ratio` dB over.
public struct Compressor: Degradation {
    public var threshold: Double
    public var ratio: Double
    public var attack: Double
    public var release: Double

    public init(threshold: Double, ratio: Double, attack: Double = 0.005, release: Double = 0.1) {
        self.threshold = threshold
        self.ratio = ratio
        self.attack = attack
        self.release = release
    }

    public var record: DegradationRecord {
        DegradationRecord("compressor", ["threshold_dBFS": format(threshold), "ratio": format(ratio),
                                         "attack_s": format(attack), "release_s": format(release)])
    }

    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        let rate = audio.sampleRate
        let up = Float(exp(-1 / (attack * rate))), down = Float(exp(-1 / (release * rate)))
        var envelope: Float = 0
        let slope = Float(1 - 1 / ratio), limit = Float(threshold)
        return Audio(samples: audio.samples.map { x in
            let magnitude = abs(x)
            let coefficient = magnitude > envelope ? up : down
            envelope = coefficient * envelope + (1 - coefficient) * magnitude
            let level = 20 * log10(max(envelope, 1e-9))
            let reduction = level > limit ? (level - limit) * slope : 0
            return x * pow(10, -reduction / 20)
        }, sampleRate: audio.sampleRate)
    }
}

/// Played `factor` times too fast by resampling (soxr): pitch and tempo change together, as a turntable
/// or tape at the wrong speed; the duration becomes duration / factor.
public struct Speed: Degradation {
    public var factor: Double
    public init(factor: Double) { self.factor = factor }
    public var record: DegradationRecord { DegradationRecord("speed", ["factor": format(factor)]) }
    public var timeMap: TimeMap { TimeMap(scale: 1 / factor) }
    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio { try playedFaster(audio, factor, label: "speed") }
}
