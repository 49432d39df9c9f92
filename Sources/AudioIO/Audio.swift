/// Mono audio at a known sample rate: what every algorithm and degradation consumes.
public struct Audio: Sendable, Equatable {
    public var samples: [Float]
    public var sampleRate: Double

    public init(samples: [Float], sampleRate: Double) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    public var duration: Double { Double(samples.count) / sampleRate }

    /// The samples in [start, start + duration) seconds, clamped to the audio.
    public func slice(start: Double, duration: Double) -> Audio {
        let from = max(0, min(samples.count, Int((start * sampleRate).rounded())))
        let to = max(from, min(samples.count, from + Int((duration * sampleRate).rounded())))
        return Audio(samples: Array(samples[from..<to]), sampleRate: sampleRate)
    }
}

/// A time window [start, start + duration) in seconds.
public struct TimeWindow: Sendable, Equatable, Codable, CustomStringConvertible {
    public var start: Double
    public var duration: Double

    public init(start: Double, duration: Double) {
        self.start = start
        self.duration = duration
    }

    public var end: Double { start + duration }
    public var description: String { "[\(start), \(end)) s" }
}
