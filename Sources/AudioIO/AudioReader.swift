import Foundation

/// What `fpbench info` prints about a file: its native properties and levels.
public struct AudioFileInfo: Sendable {
    public var path: String
    public var format: String
    public var channels: Int
    public var sampleRate: Double
    public var frames: Int
    public var peakDBFS: Double
    public var rmsDBFS: Double
    public var duration: Double { Double(frames) / sampleRate }
}

/// Decodes audio files (WAV, FLAC, OGG/Vorbis, Opus, MP3 via libsndfile) into mono Float32
/// at a requested rate, block by block, resampling as a stream (soxr).
public enum AudioReader {
    /// Reads `path` (optionally only `window`) as mono, resampled to `sampleRate` (nil keeps the file's rate).
    /// Mixdown is the mean of the channels.
    public static func read(_ path: String, sampleRate: Double? = nil, window: TimeWindow? = nil) throws -> Audio {
        let file = try SoundFile(path: path)
        var startFrame = 0, frameCount = file.frames
        if let window {
            startFrame = Int((window.start * file.sampleRate).rounded())
            frameCount = Int((window.duration * file.sampleRate).rounded())
            guard window.start >= 0, frameCount > 0, startFrame + frameCount <= file.frames else {
                throw AudioError.windowOutOfRange(path: path, window: window, fileDuration: file.duration)
            }
            try file.seek(toFrame: startFrame)
        }
        let outputRate = sampleRate ?? file.sampleRate
        let resampler = outputRate == file.sampleRate ? nil : try StreamResampler(from: file.sampleRate, to: outputRate, path: path)
        let expected = Int((Double(frameCount) * outputRate / file.sampleRate).rounded())
        var output: [Float] = []
        output.reserveCapacity(expected + 1024)
        var mono: [Float] = []
        let channels = file.channels
        try file.forEachBlock(maxFrames: frameCount) { block, _ in
            // Mono blocks go straight on; others are mixed down first.
            func deliver(_ samples: UnsafeBufferPointer<Float>) throws {
                if let resampler { try resampler.process(samples, into: &output) } else { output.append(contentsOf: samples) }
            }
            if channels == 1 { return try deliver(block) }
            let frames = block.count / channels
            if mono.count != frames { mono = [Float](repeating: 0, count: frames) }
            mixdown(block, channels: channels, into: &mono)
            try mono.withUnsafeBufferPointer { try deliver($0) }
        }
        try resampler?.process(nil, into: &output)
        if output.isEmpty { throw AudioError.empty(path: path) }
        return Audio(samples: fitted(output, to: expected), sampleRate: outputRate)
    }

    /// The file's duration in seconds, from its header, without decoding.
    public static func duration(_ path: String) throws -> Double { try SoundFile(path: path).duration }

    /// Format, channels, rate, duration, peak and RMS level (over every channel's samples).
    public static func info(_ path: String) throws -> AudioFileInfo {
        let file = try SoundFile(path: path)
        var peak: Float = 0
        var sumSquares = 0.0, count = 0
        try file.forEachBlock { block, _ in
            for x in block {
                peak = max(peak, abs(x))
                sumSquares += Double(x * x)
            }
            count += block.count
        }
        guard count > 0 else { throw AudioError.empty(path: path) }
        return AudioFileInfo(path: path, format: file.formatName, channels: file.channels, sampleRate: file.sampleRate,
                             frames: count / file.channels, peakDBFS: decibels(Double(peak)),
                             rmsDBFS: decibels((sumSquares / Double(count)).squareRoot()))
    }

    /// The mean of the channels of each interleaved frame.
    static func mixdown(_ interleaved: UnsafeBufferPointer<Float>, channels: Int, into mono: inout [Float]) {
        let scale = 1 / Float(channels)
        mono.withUnsafeMutableBufferPointer { out in
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
