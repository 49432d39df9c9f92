import Foundation

/// What `fpbench info` prints about a file: its native properties and levels.
public struct AudioFileInfo: Sendable {
    public var path: String
    public var format: String
    public var channels: Int
    public var sampleRate: Double
    /// Frames that decode.
    public var frames: Int
    /// Frames the header states (nil: none); differs from `frames` for a damaged file.
    public var headerFrames: Int?
    /// The container's estimate of its length where it states no exact one (MP4, Matroska, ASF, MP3), seconds.
    public var statedDuration: Double?
    public var peakDBFS: Double
    public var rmsDBFS: Double
    public var duration: Double { Double(frames) / sampleRate }
}

/// Decodes audio files (WAV and FLAC through libsndfile, every other container and codec through FFmpeg:
/// AIFF, Ogg Vorbis and Opus, MP3, M4A/AAC, a video's soundtrack, ...; `DecoderLibrary`) into mono Float32 at
/// a requested rate, block by block, resampling as a stream (soxr).
public enum AudioReader {
    /// Seconds a whole file may decode short of its header's length (never padded: the audio is what
    /// decodes; a shortfall within it is a warning, once per file, with both lengths).
    public static let headerSlack = 0.25

    /// Reads `path` (optionally only `window`) as mono, resampled to `sampleRate` (nil keeps the file's rate).
    /// Mixdown is the mean of the channels. `decoder` nil: the library chosen for the file's format
    /// (`DecoderLibrary.choice`).
    public static func read(_ path: String, sampleRate: Double? = nil, window: TimeWindow? = nil,
                            decoder: DecoderLibrary? = nil) throws -> Audio {
        var output: [Float] = []
        var reserved = false
        let rate = try stream(path, sampleRate: sampleRate, window: window, decoder: decoder, expecting: { count in
            // Room for what the header promises, so the signal is never copied as it grows (reserved pages
            // cost no memory until written), but never more than four hours up front: a damaged header
            // cannot make the reader reserve more than that.
            if !reserved { output.reserveCapacity(count); reserved = true }
        }) { output.append(contentsOf: $0) }
        return Audio(samples: output, sampleRate: rate)
    }

    /// Reads `path` (optionally only `window`) as `read` does, handing the mono samples at `sampleRate` to
    /// `body` block by block as they decode, so nothing holds the whole signal; the blocks add up to
    /// exactly the samples `read` returns. `expecting` hears, before the first block, how many samples the
    /// header promises (at most four hours' worth). Returns the output rate.
    @discardableResult
    public static func stream(_ path: String, sampleRate: Double? = nil, window: TimeWindow? = nil, decoder: DecoderLibrary? = nil,
                              expecting: (Int) -> Void = { _ in }, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws -> Double {
        try stream(path, sampleRates: [sampleRate], window: window, decoder: decoder, expecting: expecting) { _, block in try body(block) }[0]
    }

    /// Decodes `path` once and hands its mono samples out at each of `sampleRates` (nil: the file's own),
    /// one resampler per rate: `body(i, block)` gets the blocks at rate i, which add up to exactly what
    /// `read` returns at that rate. `expecting` hears the first rate's promised count. Returns the rates.
    @discardableResult
    public static func stream(_ path: String, sampleRates: [Double?], window: TimeWindow? = nil, decoder: DecoderLibrary? = nil,
                              expecting: (Int) -> Void = { _ in }, _ body: (Int, UnsafeBufferPointer<Float>) throws -> Void) throws -> [Double] {
        let file = try decoder.map { try $0.open(path) } ?? DecoderLibrary.open(path)
        var startFrame = 0, frameCount: Int?
        if let window {
            (startFrame, frameCount) = try frames(of: window, in: file)
            try file.seek(toFrame: startFrame)
        }
        let outputs = try sampleRates.map { try RateOutput(from: file.sampleRate, to: $0 ?? file.sampleRate, path: path) }
        let wanted = frameCount ?? file.frames
        if let first = outputs.first {
            expecting(min(Int(Double(wanted ?? 0) * first.rate / file.sampleRate) + 1024, Int(first.rate) * 4 * 3600))
        }
        var mono: [Float] = []
        let channels = file.channels
        var decoded = 0
        try file.forEachBlock(maxFrames: frameCount ?? .max) { block, _ in
            decoded += block.count / channels
            // Mono blocks go straight on; others are mixed down first.
            func deliver(_ samples: UnsafeBufferPointer<Float>) throws {
                for (i, output) in outputs.enumerated() { try output.feed(samples) { try body(i, $0) } }
            }
            if channels == 1 { return try deliver(block) }
            let frames = block.count / channels
            if mono.count != frames { mono = [Float](repeating: 0, count: frames) }
            mixdown(block, channels: channels, into: &mono)
            try mono.withUnsafeBufferPointer { try deliver($0) }
        }
        for (i, output) in outputs.enumerated() { try output.feed(nil) { try body(i, $0) } }
        if let frameCount, file.frames == nil, decoded < frameCount {
            // A container that states no exact length: the window is past the end that decoding found.
            throw AudioError.windowOutOfRange(path: path, window: window!, fileDuration: Double(startFrame + decoded) / file.sampleRate)
        }
        if decoded == 0 { throw AudioError.noFrames(path: path) }
        // Fewer frames than the window or the header states: the file is damaged, never silently padded.
        // A whole file may fall short of its header by up to `headerSlack` (a decoder may stop up to a few
        // hundred milliseconds before the end of some valid Ogg files whose length was estimated).
        let slack = frameCount == nil ? Int(headerSlack * file.sampleRate) : 0
        if let wanted, decoded + slack < wanted {
            throw AudioError.truncated(path: path, at: Double(startFrame + decoded) / file.sampleRate,
                                       stated: Double(startFrame + wanted) / file.sampleRate)
        }
        if let wanted, decoded < wanted {
            DecodeNotice.once(path, "short", String(format: "decodes to %.3f s where its header says %.3f s (within the %.2f s allowed; the audio is what decodes)",
                                                    Double(decoded) / file.sampleRate, Double(wanted) / file.sampleRate, AudioReader.headerSlack))
        }
        if file.skippedPackets > 0 {
            DecodeNotice.once(path, "packets", "has \(file.skippedPackets) damaged packet(s), skipped as the ffmpeg command skips them (the audio is what decodes)")
        }
        if window == nil { warnIfShortOfEstimate(file, decoded: decoded) }
        for (i, output) in outputs.enumerated() {
            try output.finish(count: Int((Double(decoded) * output.rate / file.sampleRate).rounded())) { try body(i, $0) }
        }
        return outputs.map(\.rate)
    }

    /// A whole file of a container whose length is only an estimate (MP4, Matroska, ASF, MP3) that decodes
    /// clearly shorter than the estimate is damaged: said once, as for the containers that state it exactly.
    /// The estimate's own error (an encoder's padding, milliseconds) stays within `headerSlack`.
    static func warnIfShortOfEstimate(_ file: AudioDecoder, decoded: Int) {
        guard let stated = file.statedDuration else { return }
        let seconds = Double(decoded) / file.sampleRate
        if seconds + headerSlack < stated {
            DecodeNotice.once(file.path, "estimate", String(format: "decodes to %.3f s where its container states about %.3f s (damaged? the audio is what decodes)", seconds, stated))
        }
    }

    /// The first frame and the frame count of `window`, checked against the header's length.
    private static func frames(of window: TimeWindow, in file: AudioDecoder) throws -> (start: Int, count: Int) {
        guard window.start.isFinite, window.duration.isFinite, window.start >= 0, window.duration > 0,
              window.start + window.duration <= 86_400 else {
            throw AudioError.windowOutOfRange(path: file.path, window: window, fileDuration: file.duration ?? 0)
        }
        let start = Int((window.start * file.sampleRate).rounded()), count = Int((window.duration * file.sampleRate).rounded())
        if let frames = file.frames, start + count > frames {
            throw AudioError.windowOutOfRange(path: file.path, window: window, fileDuration: file.duration ?? 0)
        }
        return (start, count)
    }

    /// How many samples `read(path, sampleRate:, window:)` returns for an intact file, from the header
    /// alone (a header that states no length is decoded to find out).
    public static func sampleCount(_ path: String, sampleRate: Double, window: TimeWindow) throws -> Int {
        let file = try DecoderLibrary.open(path)
        guard file.frames != nil else { return try read(path, sampleRate: sampleRate, window: window).samples.count }
        let count = try frames(of: window, in: file).count
        return sampleRate == file.sampleRate ? count : Int((Double(count) * sampleRate / file.sampleRate).rounded())
    }

    /// The file's duration in seconds, from its header, without decoding; when the header states no
    /// length, the file is decoded to count its frames.
    public static func duration(_ path: String) throws -> Double {
        let file = try DecoderLibrary.open(path)
        if let duration = file.duration { return duration }
        var frames = 0
        try file.forEachBlock { block, _ in frames += block.count / file.channels }
        guard frames > 0 else { throw AudioError.noFrames(path: path) }
        return Double(frames) / file.sampleRate
    }

    /// Format, channels, rate, duration, peak and RMS level (over every channel's samples).
    public static func info(_ path: String) throws -> AudioFileInfo {
        let file = try DecoderLibrary.open(path)
        var peak: Float = 0
        var sumSquares = 0.0, count = 0
        try file.forEachBlock { block, _ in
            for x in block {
                peak = max(peak, abs(x))
                sumSquares += Double(x * x)
            }
            count += block.count
        }
        guard count > 0 else { throw AudioError.noFrames(path: path) }
        if file.skippedPackets > 0 {
            DecodeNotice.once(path, "packets", "has \(file.skippedPackets) damaged packet(s), skipped as the ffmpeg command skips them (the audio is what decodes)")
        }
        warnIfShortOfEstimate(file, decoded: count / file.channels)
        return AudioFileInfo(path: path, format: file.formatName, channels: file.channels, sampleRate: file.sampleRate,
                             frames: count / file.channels, headerFrames: file.frames, statedDuration: file.statedDuration, peakDBFS: decibels(Double(peak)),
                             rmsDBFS: decibels((sumSquares / Double(count)).squareRoot()))
    }

    /// Stereo's means, (0 + left + right) / 2 as the general loop sums them.
    @inline(never)
    private static func mixStereo(_ interleaved: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        for frame in 0..<out.count { out[frame] = ((0 + interleaved[2 &* frame]) + interleaved[2 &* frame &+ 1]) * 0.5 }
    }

    /// The mean of the channels of each interleaved frame: the sum from zero, channel by channel, times
    /// 1 / channels (stereo, most files, in a loop of its own that the compiler vectorises; the same sums).
    static func mixdown(_ interleaved: UnsafeBufferPointer<Float>, channels: Int, into mono: inout [Float]) {
        let scale = 1 / Float(channels)
        mono.withUnsafeMutableBufferPointer { out in
            if channels == 2 { return mixStereo(interleaved, into: out) }
            for frame in 0..<out.count {
                var sum: Float = 0
                for c in 0..<channels { sum += interleaved[frame &* channels &+ c] }
                out[frame] = sum * scale
            }
        }
    }
}

/// 20·log10(amplitude) relative to full scale; -infinity for silence.
public func decibels(_ amplitude: Double) -> Double { 20 * log10(amplitude) }

/// One output rate of a decoding: resamples the mono blocks (none when the rate is the file's) and hands
/// them on, holding the last samples back until the end, since the resampler's last block may run a
/// sample long or short of the exact ratio: they are then delivered trimmed or padded to the exact count.
private final class RateOutput {
    let rate: Double
    private let resampler: StreamResampler?
    private static let holdBack = 4096
    private var held: [Float] = [], resampled: [Float] = []
    private var delivered = 0

    init(from inputRate: Double, to rate: Double, path: String) throws {
        self.rate = rate
        resampler = rate == inputRate ? nil : try StreamResampler(from: inputRate, to: rate, path: path)
    }

    /// Takes a mono block (nil: the end, flushing the resampler) and passes on what need not be held.
    func feed(_ samples: UnsafeBufferPointer<Float>?, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        guard let resampler else { return try samples.map { try pass($0, body) } ?? () }
        resampled.removeAll(keepingCapacity: true)
        try resampler.process(samples, into: &resampled)
        try resampled.withUnsafeBufferPointer { try pass($0, body) }
    }

    /// Passes on all but the last `holdBack` samples of those held and `samples`: the held ones first, then
    /// the block's own straight from it.
    private func pass(_ samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        guard held.count + samples.count > 2 * Self.holdBack else { return held.append(contentsOf: samples) }
        let kept = max(0, Self.holdBack - samples.count)  // of the held ones
        if held.count > kept {
            try held.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<($0.count - kept)])) }
            delivered += held.count - kept
            held.removeFirst(held.count - kept)
        }
        let goesOn = samples.count - (Self.holdBack - held.count)
        if goesOn > 0 { try body(UnsafeBufferPointer(rebasing: samples[..<goesOn])) }
        delivered += max(0, goesOn)
        held.append(contentsOf: samples[max(0, goesOn)...])
    }

    /// Delivers the held samples, fitted so that `count` samples were delivered in all.
    func finish(count: Int, _ body: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        fit(&held, to: max(0, count - delivered))
        try held.withUnsafeBufferPointer(body)
    }
}

/// What a reader should know about how a file decoded, said once per file, kind and process on standard error:
/// a whole file shorter than its header says (within `AudioReader.headerSlack`), damaged packets skipped, a
/// file its chosen library could not open read by the other. The audio is always what decodes.
enum DecodeNotice {
    static func once(_ path: String, _ kind: String, _ message: @autoclosure () -> String) {
        Console.warning(once: "decoding|" + kind + "|" + path, "\(path) \(message())")
    }
}
