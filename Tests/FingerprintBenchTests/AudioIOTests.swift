@testable import AudioIO
import DSP
import Foundation
import SuiteEvaluation
import Testing

@Suite struct AudioRoundTripTests {
    /// One second of a chord at 44.1 kHz, quantised to 16 bits so lossless formats must return it exactly.
    let chord: Audio = {
        let a = sine(frequency: 440, amplitude: 0.3, duration: 1, sampleRate: 44_100)
        let b = sine(frequency: 1250, amplitude: 0.2, duration: 1, sampleRate: 44_100)
        return Audio(samples: zip(a.samples, b.samples).map { (($0 + $1) * 32768).rounded() / 32768 }, sampleRate: 44_100)
    }()

    @Test(arguments: ["wav", "flac"]) func losslessIsExact(ext: String) throws {
        let path = temporaryFolder().appendingPathComponent("chord.\(ext)").path
        try AudioWriter.write(chord, to: path)
        let back = try AudioReader.read(path)
        #expect(back == chord)
    }

    @Test(arguments: ["ogg", "mp3"]) func lossyKeepsTheSignal(ext: String) throws {
        let path = temporaryFolder().appendingPathComponent("chord.\(ext)").path
        try AudioWriter.write(chord, to: path)
        let back = try AudioReader.read(path)
        #expect(back.sampleRate == 44_100)
        // Codec padding: at most one MP3 granule pair (2 × 1,152) plus the encoder delay.
        #expect(abs(back.samples.count - chord.samples.count) <= 3_500)
        // Decoders may add a delay: take the best-aligned correlation within ±2,000 samples.
        let best = stride(from: -2000, through: 2000, by: 1).map { lag -> Double in
            let a = lag >= 0 ? Array(back.samples.dropFirst(lag)) : back.samples
            let b = lag >= 0 ? chord.samples : Array(chord.samples.dropFirst(-lag))
            let n = min(a.count, b.count) - 4000
            return correlation(Array(a[2000..<n]), Array(b[2000..<n]))
        }.max()!
        #expect(best > 0.99)
    }

    @Test func resamplingKeepsPitchAndDuration() throws {
        let path = temporaryFolder().appendingPathComponent("tone.wav").path
        try AudioWriter.write(sine(frequency: 1000, duration: 3, sampleRate: 44_100), to: path)
        let low = try AudioReader.read(path, sampleRate: 5512)
        #expect(low.sampleRate == 5512)
        #expect(abs(low.samples.count - 3 * 5512) <= 1)
        #expect(abs(peakFrequency(low) - 1000) < 2)
    }

    @Test func aWindowReadEqualsTheSliceOfAFullRead() throws {
        let path = temporaryFolder().appendingPathComponent("chord.flac").path
        try AudioWriter.write(chord, to: path)
        let full = try AudioReader.read(path)
        let window = try AudioReader.read(path, window: TimeWindow(start: 0.25, duration: 0.5))
        #expect(window.samples == Array(full.samples[11_025..<33_075]))
    }

    @Test func stereoIsMixedToTheMeanOfItsChannels() throws {
        var mono = [Float](repeating: 0, count: 3)
        let interleaved: [Float] = [1, 0, 0.5, 0.5, -1, 0]
        interleaved.withUnsafeBufferPointer { AudioReader.mixdown($0, channels: 2, into: &mono) }
        #expect(mono == [0.5, 0.5, -0.5])
    }

    /// Stereo has a loop of its own; it must give every channel count's sums, bit for bit (signed zeros,
    /// values far apart in size, odd frame counts).
    @Test(arguments: 1...6) func mixdownIsTheSumFromZeroTimesTheScale(channels: Int) {
        var interleaved = SeededNoise(seed: UInt64(channels)).gaussian(count: 37 * channels, sigma: 0.3)
        for (i, value) in [-0.0, 0, 1e-30, -1e30, 0.1, -0.3, -0.0, -0.0].enumerated() where i < interleaved.count { interleaved[i] = Float(value) }
        var mono = [Float](repeating: .nan, count: 37)
        interleaved.withUnsafeBufferPointer { AudioReader.mixdown($0, channels: channels, into: &mono) }
        let expected = (0..<37).map { frame in
            (0..<channels).reduce(Float(0)) { $0 + interleaved[frame * channels + $1] } * (1 / Float(channels))
        }
        #expect(mono.map(\.bitPattern) == expected.map(\.bitPattern))
    }
}

@Suite struct AudioErrorTests {
    let folder = temporaryFolder()

    func expectError(_ path: String, _ matches: (AudioError) -> Bool) {
        do {
            _ = try AudioReader.read(path)
            Issue.record("expected an error for \(path)")
        } catch let error as AudioError {
            #expect(matches(error), "got \(error)")
            #expect(error.path == path)
            #expect(error.description.hasPrefix(path))
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func missingFile() {
        expectError(folder.appendingPathComponent("nope.wav").path) { if case .missing = $0 { true } else { false } }
    }

    @Test func unsupportedFormat() throws {
        let path = folder.appendingPathComponent("song.m4a").path
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: path))
        expectError(path) { if case .unsupported = $0 { true } else { false } }
    }

    @Test func corruptFile() throws {
        let path = folder.appendingPathComponent("corrupt.wav").path
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        expectError(path) {
            switch $0 { case .unsupported, .unreadable: true; default: false }
        }
    }

    @Test func emptyFile() throws {
        let path = folder.appendingPathComponent("empty.wav").path
        try Data().write(to: URL(fileURLWithPath: path))
        expectError(path) { if case .empty = $0 { true } else { false } }
    }

    @Test func zeroFrames() throws {
        let path = folder.appendingPathComponent("zero.wav").path
        try floatWAV([]).write(to: URL(fileURLWithPath: path))
        expectError(path) { if case .noFrames = $0 { $0.reason.contains("not empty") } else { false } }
    }

    @Test func nonFiniteSamples() throws {
        let path = folder.appendingPathComponent("nan.wav").path
        try floatWAV([0, 0.5, .nan, 0.1]).write(to: URL(fileURLWithPath: path))
        expectError(path) { if case .nonFinite(_, let frame) = $0 { frame == 2 } else { false } }
    }

    /// The vectorised search finds the first infinity or NaN wherever it lies in a block (in a chunk of 16,
    /// across chunks, in the tail), and the largest finite values and subnormals pass.
    @Test func firstNonFiniteFindsTheFirstWhereverItLies() {
        var samples = [Float](repeating: 0.25, count: 1_003)
        samples[7] = .greatestFiniteMagnitude; samples[9] = -.greatestFiniteMagnitude; samples[11] = .leastNonzeroMagnitude
        samples.withUnsafeBufferPointer { #expect(firstNonFinite($0) == nil) }
        for position in [0, 15, 16, 17, 500, 991, 992, 1_002] {
            for bad in [Float.nan, .infinity, -.infinity] {
                var block = samples
                block[position] = bad
                if position + 40 < block.count { block[position + 40] = .nan }
                block.withUnsafeBufferPointer { #expect(firstNonFinite($0) == position, "\(bad) at \(position)") }
                block.withUnsafeBufferPointer { #expect(firstNonFinite(UnsafeBufferPointer(rebasing: $0[..<position])) == nil) }
            }
        }
    }

    @Test func windowBeyondTheEnd() throws {
        let path = folder.appendingPathComponent("short.wav").path
        try AudioWriter.write(sine(frequency: 440, duration: 1, sampleRate: 8000), to: path)
        #expect(throws: AudioError.windowOutOfRange(path: path, window: TimeWindow(start: 0.5, duration: 1), fileDuration: 1)) {
            _ = try AudioReader.read(path, window: TimeWindow(start: 0.5, duration: 1))
        }
    }
}

/// Standard error's one writer: a warning under a terminal's progress line lands above it and the line is
/// drawn again below; lines written from many threads at once arrive whole; a warning said once is said once.
@Suite(.serialized) struct ConsoleTests {
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var parts: [String] = []
        func append(_ text: String) { lock.withLock { parts.append(text) } }
        var text: String { lock.withLock { parts.joined() } }
    }

    @Test func warningsLandAboveTheProgressLineAndArriveWhole() {
        let captured = Captured(), saved = Console.output
        Console.output = { captured.append($0) }
        defer { Console.output = saved }
        Console.progress("indexing 3/10 [console test]", inPlace: true)
        Console.warning("[console test] a damaged file")
        Console.endProgress()
        let long = String(repeating: "x", count: 2_000)
        DispatchQueue.concurrentPerform(iterations: 200) { i in Console.note("[console test] line \(i) \(long)") }
        for _ in 0..<3 { Console.warning(once: "[console test]", "[console test] once") }
        let text = captured.text
        #expect(text.contains("\r\u{1B}[Kwarning: [console test] a damaged file\nindexing 3/10 [console test]"))
        #expect((0..<200).allSatisfy { text.contains("[console test] line \($0) \(long)\n") })
        #expect(text.components(separatedBy: "warning: [console test] once\n").count == 2)
    }
}
