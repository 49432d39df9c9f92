import AudioIO
import DSP
import Foundation

/// Lossy coding as radio and streaming do it: the audio is encoded (MP3, Ogg/Vorbis or Opus, through
/// libsndfile) at a compression level, decoded again, and shifted back by the codec's delay (found by
/// cross-correlation), so the query keeps its length and its place in the recording. `coded(_:)` also
/// gives the delay it removed and the bitrate the encoder really produced.
public struct Codec: Degradation {
    public enum Format: String, Sendable, Codable, CaseIterable { case mp3, ogg, opus }

    public var container: Format
    /// libsndfile's compression level: 0 the best quality (largest file), 1 the smallest.
    public var compression: Double
    /// The MP3 bitrate asked for, when the level was chosen to give it.
    public var kbps: Double?

    public init(container: Format, compression: Double) {
        self.container = container
        self.compression = compression
    }

    /// MP3 at a constant bitrate: libsndfile's encoder codes at 320 − 288 · level kbps (MPEG-1 rates,
    /// mpeg_l3_encode.c), truncated, and LAME takes the nearest standard bitrate (32, 40, ... 320).
    public init(mp3Kbps kbps: Double) {
        self.init(container: .mp3, compression: min(1, max(0, (320 - kbps - 0.5) / 288)))
        self.kbps = kbps
    }

    public var record: DegradationRecord {
        DegradationRecord("codec", ["format": container.rawValue, "compression": format(compression)].merging(kbps.map { ["kbps": format($0)] } ?? [:]) { a, _ in a })
    }

    /// Opus codes at 48 kHz (and a few lower rates); the other formats at the audio's own rate.
    var codingRate: (Double) -> Double { { rate in self.container == .opus ? 48_000 : rate } }

    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio {
        try coded(audio).audio
    }

    /// The decoded audio, the delay removed (samples) and the bitrate (bits per second of audio).
    public func coded(_ audio: Audio) throws -> (audio: Audio, delay: Int, bitrate: Double) {
        let folder = try ScratchFolder.make("codec")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("coded.\(container.rawValue)").path
        let input = try audio.resampled(to: codingRate(audio.sampleRate), label: "codec")
        try AudioWriter.write(input, to: path, compression: compression)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let decoded = try AudioReader.read(path, sampleRate: audio.sampleRate)
        let delay = Self.lag(of: decoded.samples, behind: audio.samples, maximum: Int(0.1 * audio.sampleRate))
        let n = audio.samples.count
        var samples = Array(decoded.samples.dropFirst(delay).prefix(n))
        if samples.count < n { samples += [Float](repeating: 0, count: n - samples.count) }  // the codec's final frame, at most
        return (Audio(samples: samples, sampleRate: audio.sampleRate), delay, Double(size * 8) / audio.duration)
    }

    /// How many samples `late` lags behind `early` (0...maximum), by the peak of their cross-correlation
    /// over the first two seconds.
    static func lag(of late: [Float], behind early: [Float], maximum: Int) -> Int {
        let window = min(early.count, late.count, 88_200)
        guard window > maximum * 2 else { return 0 }
        let a = Array(early.prefix(window - maximum)), b = Array(late.prefix(window))
        // correlation[k] = Σ a[i] · b[i + k]: convolve b with a reversed.
        let full = convolve(b, with: a.reversed())
        var best = 0, bestValue = -Float.infinity
        for k in 0...maximum {
            let value = full[a.count - 1 + k]
            if value > bestValue { bestValue = value; best = k }
        }
        return best
    }
}
