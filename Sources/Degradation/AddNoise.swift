import AudioIO
import DSP
import Foundation

/// What kind of noise to add.
public enum NoiseKind: Sendable, Equatable, CustomStringConvertible {
    /// Uniform white noise (the thesis's test 3).
    case whiteUniform
    case whiteGaussian
    case pink
    /// A recording (babble, a street), looped from a seeded starting point.
    case recorded(name: String, audio: Audio)

    public var description: String {
        switch self {
        case .whiteUniform: return "white-uniform"
        case .whiteGaussian: return "white-gaussian"
        case .pink: return "pink"
        case .recorded(let name, _): return "recorded:\(name)"
        }
    }
}

/// How loud the noise is: a peak level in dBFS (the thesis's 1.58 % and 3.16 % of full scale are -36
/// and -30 dBFS), or a signal-to-noise ratio in dB (signal power over noise power).
public enum NoiseLevel: Sendable, Equatable, Codable, CustomStringConvertible {
    case peak(dBFS: Double)
    case snr(dB: Double)

    public var description: String {
        switch self {
        case .peak(let d): return String(format: "%g dBFS peak (%.2f %% of full scale)", d, 100 * pow(10, d / 20))
        case .snr(let d): return String(format: "%g dB SNR", d)
        }
    }
}

public struct AddNoise: Degradation {
    public var kind: NoiseKind
    public var level: NoiseLevel

    public init(kind: NoiseKind, level: NoiseLevel) {
        self.kind = kind
        self.level = level
    }

    public var record: DegradationRecord {
        DegradationRecord("noise", ["kind": kind.description, "level": level.description])
    }

    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio {
        let n = audio.samples.count
        var noise: [Float]
        switch kind {
        case .whiteUniform: noise = random.uniform(count: n, amplitude: 1)
        case .whiteGaussian: noise = random.gaussian(count: n, sigma: 1)
        case .pink: noise = random.pink(count: n, sigma: 1)
        case .recorded(let name, let recording):
            let source = try recording.resampled(to: audio.sampleRate, label: name).samples
            guard !source.isEmpty else { return audio }
            let start = random.integer(below: source.count)
            noise = (0..<n).map { source[(start + $0) % source.count] }
        }
        let scale: Double
        switch level {
        case .peak(let dBFS):
            let peak = Double(noise.map { abs($0) }.max() ?? 0)
            scale = peak > 0 ? pow(10, dBFS / 20) / peak : 0
        case .snr(let dB):
            let noisePower = pow(rms(noise), 2), signalPower = pow(rms(audio.samples), 2)
            scale = noisePower > 0 ? (signalPower / noisePower / pow(10, dB / 10)).squareRoot() : 0
        }
        return Audio(samples: zip(audio.samples, noise).map { $0 + Float(Double($1) * scale) }, sampleRate: audio.sampleRate)
    }
}
