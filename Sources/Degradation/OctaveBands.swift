import DSP
import Foundation

/// The octave bands a room's response is built in, as pyroomacoustics 0.8.3 splits it (`OctaveBandsFactory`):
/// centres at 125 Hz · 2^i, as many as lie below the rate (⌊log₂(rate / 125)⌋, at most `most`); each band
/// rises as a raised cosine from the centre below to its own and falls to the centre above, so neighbouring
/// bands sum to one; the first rises from half its centre (62.5 Hz: below it nothing passes, as their default
/// `keep_dc = False` has it), the last keeps everything above its centre.
public struct OctaveBands: Sendable {
    public static let lowest = 125.0
    /// The most bands a room describes, 125 Hz to 16 kHz: at 44.1 and 48 kHz the last reaches the Nyquist.
    public static let most = 8
    public static let centres = (0..<most).map { lowest * pow(2, Double($0)) }

    public let sampleRate: Double
    public init(sampleRate: Double) { self.sampleRate = sampleRate }

    /// How many bands this rate holds.
    public var count: Int { max(1, min(Self.most, Int(log2(sampleRate / Self.lowest)))) }

    /// Band `band`'s gain at `frequency` hertz.
    public func gain(_ band: Int, at frequency: Double) -> Double {
        let centre = Self.centres[band]
        if frequency < centre {
            return frequency >= centre / 2 ? 0.5 * (1 + cos(2 * .pi * frequency / centre)) : 0
        }
        if band == count - 1 { return 1 }
        return frequency < 2 * centre ? 0.5 * (1 - cos(.pi * frequency / centre)) : 0
    }

    /// The bands' responses, each kept to its band and summed: one response as long as the longest, the
    /// filters' ringing before the start and past the end left out (their gains are real: no delay).
    public func combine(_ responses: [[Float]]) -> [Float] { kept(responses.prefix(count).enumerated().map { ($0.offset, $0.element) }) }

    /// `response` kept to band `band`, as a measurement of that band's reverberation hears it.
    public func keep(_ response: [Float], to band: Int) -> [Float] { kept([(band, response)]) }

    private func kept(_ parts: [(band: Int, response: [Float])]) -> [Float] {
        let length = parts.map(\.response.count).max() ?? 0
        guard length > 0 else { return [] }
        var size = 1
        while size < length + Int(sampleRate / 20) { size <<= 1 }
        let fft = RealFFT(size: size)
        var sum = [(Float, Float)](repeating: (0, 0), count: fft.binCount)
        for (band, response) in parts {
            let gains = (0..<fft.binCount).map { Float(gain(band, at: Double($0) * sampleRate / Double(size))) }
            response.withUnsafeBufferPointer { frame in
                fft.transform(frame) { bins in
                    for k in bins.indices { sum[k].0 += gains[k] * bins[k].0; sum[k].1 += gains[k] * bins[k].1 }
                }
            }
        }
        return Array(inverseRealFFT(sum, size: size).prefix(length))
    }
}
