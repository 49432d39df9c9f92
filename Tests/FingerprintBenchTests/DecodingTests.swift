@testable import AudioIO
import Foundation
import SuiteEvaluation
import Testing

/// Every container and codec of a researcher's collection, made at test time by `ffmpeg` from a real stereo
/// bird recording of the `ci` dataset, decoded by `AudioReader` (FFmpeg's libraries) and checked against
/// `ffmpeg`'s own decoding of the same file, the lossless ones against the source's samples too.
@Suite(.serialized) struct DecodingTests {
    /// A file of each kind: its name, `ffmpeg`'s output options, and whether it keeps the source's samples.
    struct Kind: Sendable, CustomStringConvertible {
        let file: String
        let options: [String]
        let lossless: Bool
        var description: String { file }
    }

    static let kinds: [Kind] = [
        Kind(file: "pcm16.wav", options: ["-c:a", "pcm_s16le"], lossless: true),
        Kind(file: "pcm24.wav", options: ["-c:a", "pcm_s24le"], lossless: true),
        Kind(file: "float.wav", options: ["-c:a", "pcm_f32le"], lossless: true),
        Kind(file: "pcm16.aiff", options: ["-c:a", "pcm_s16be"], lossless: true),
        Kind(file: "lossless.flac", options: ["-c:a", "flac"], lossless: true),
        Kind(file: "vorbis.ogg", options: ["-c:a", "libvorbis", "-q:a", "4"], lossless: false),
        Kind(file: "opus.opus", options: ["-c:a", "libopus", "-b:a", "96k"], lossless: false),
        Kind(file: "opus.webm", options: ["-c:a", "libopus", "-b:a", "96k"], lossless: false),
        Kind(file: "mp3.mp3", options: ["-c:a", "libmp3lame", "-b:a", "128k"], lossless: false),
        Kind(file: "aac.m4a", options: ["-c:a", "aac", "-b:a", "128k"], lossless: false),
        Kind(file: "wma.wma", options: ["-c:a", "wmav2", "-b:a", "128k"], lossless: false),
        // Soundtracks of videos: the first audio stream is read, the picture ignored.
        Kind(file: "video-aac.mp4", options: ["-c:v", "mpeg4", "-c:a", "aac", "-b:a", "128k", "-shortest"], lossless: false),
        Kind(file: "video-flac.mkv", options: ["-c:v", "mpeg4", "-c:a", "flac", "-shortest"], lossless: true),
    ]

    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets/ci/audio/birds/petrel-XC663885.wav").path
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let folder = temporaryFolder()

    /// Makes `kind`'s file from the source (once), with a small picture for the video kinds.
    static func make(_ kind: Kind) throws -> String {
        let path = folder.appendingPathComponent(kind.file).path
        if FileManager.default.fileExists(atPath: path) { return path }
        guard let ffmpeg else { throw MissingTool("ffmpeg is not installed (scripts/setup.sh ffmpeg installs it; scripts/test.sh does)") }
        let video = kind.options.contains("-c:v") ? ["-f", "lavfi", "-i", "color=c=gray:s=64x48:r=10:d=16"] : []
        let (status, _) = try run(ffmpeg, ["-v", "error", "-y", "-i", source] + video + ["-map", "0:a:0"]
                                  + (video.isEmpty ? [] : ["-map", "1:v:0"]) + kind.options + [path])
        try #require(status == 0, "ffmpeg could not make \(kind.file)")
        return path
    }

    /// `ffmpeg`'s decoding of the file's first audio stream: interleaved Float32 at its own rate, and its channels.
    static func ffmpegSamples(_ path: String) throws -> (samples: [Float], channels: Int) {
        let (_, probe) = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels",
                                                      "-of", "csv=p=0", path])
        let channels = try #require(Int(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let (status, raw) = try run(ffmpeg!, ["-v", "error", "-threads", "1", "-i", path, "-map", "0:a:0", "-f", "f32le", "-"])
        try #require(status == 0)
        return (raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, channels)
    }

    static func mono(_ interleaved: [Float], channels: Int) -> [Float] {
        var mono = [Float](repeating: 0, count: interleaved.count / channels)
        interleaved.withUnsafeBufferPointer { AudioReader.mixdown($0, channels: channels, into: &mono) }
        return mono
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try start(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    @Test(arguments: kinds) func everyFormatDecodesAsFFmpegDoes(kind: Kind) throws {
        let path = try Self.make(kind)
        let ours = try AudioReader.read(path)
        let theirs = try Self.ffmpegSamples(path)
        // The same length as ffmpeg decodes, sample for sample.
        #expect(ours.samples.count == theirs.samples.count / theirs.channels, "\(kind.file)")
        #expect(difference(ours.samples, Self.mono(theirs.samples, channels: theirs.channels)) == nil, "\(kind.file)")
        // The length the container states, where it states one exactly, is the length that decodes.
        let info = try AudioReader.info(path)
        if let stated = info.headerFrames { #expect(stated == info.frames, "\(kind.file): stated \(stated), decoded \(info.frames)") }
        if ["wav", "aiff", "flac", "ogg", "opus"].contains((kind.file as NSString).pathExtension) { #expect(info.headerFrames != nil, "\(kind.file)") }
        if kind.lossless {
            let original = try AudioReader.read(Self.source, decoder: .libsndfile)
            #expect(ours.sampleRate == original.sampleRate)
            #expect(difference(ours.samples, original.samples) == nil, "\(kind.file) does not give back the source's samples")
        }
    }

    @Test(arguments: kinds) func aWindowIsTheSliceOfTheWholeDecoding(kind: Kind) throws {
        let path = try Self.make(kind)
        let whole = try AudioReader.read(path)
        let rate = whole.sampleRate
        for (start, duration) in [(0.0, 1.0), (0.5, 2.0), (5.1, 3.0), (11.7, 2.5)] {
            let window = try AudioReader.read(path, window: TimeWindow(start: start, duration: duration))
            let first = Int((start * rate).rounded())
            let expected = Array(whole.samples[first..<(first + Int((duration * rate).rounded()))])
            #expect(difference(window.samples, expected) == nil, "\(kind.file) at \(start) s")
        }
    }

    @Test(arguments: ["aac.m4a", "pcm16.wav"]) func aWindowPastTheEndIsNamed(file: String) throws {
        let path = try Self.make(Self.kinds.first { $0.file == file }!)
        #expect { try AudioReader.read(path, window: TimeWindow(start: 14, duration: 3)) } throws: {
            if case .windowOutOfRange(_, _, let duration) = $0 as? AudioError { abs(duration - 15.38) < 0.05 } else { false }
        }
    }

    /// The catalog's own Ogg Vorbis tracks (real encoder output, as the benchmark cuts its queries from them).
    @Test func windowsOfRealOggTracksAreSlicesOfTheirWholeDecoding() throws {
        let folder = Self.source.components(separatedBy: "/Datasets/")[0] + "/Datasets/catalog-ci/audio/drascula"
        let tracks = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ogg") }
        try #require(tracks.count >= 5, "fetch the catalog-ci dataset (scripts/fetch-dataset.sh catalog-ci)")
        for track in tracks {
            let path = folder + "/" + track, whole = try AudioReader.read(path)
            let window = try AudioReader.read(path, window: TimeWindow(start: 4.25, duration: 3))
            let first = Int(4.25 * whole.sampleRate)
            #expect(difference(window.samples, Array(whole.samples[first..<(first + window.samples.count)])) == nil, "\(track)")
        }
    }

    /// A Vorbis stream whose first packets are stamped before its start (a stream copy cut at 1.3 s; a
    /// libvorbis file has 128 such samples): they are dropped, as the format asks, so the decoding is the
    /// original's from 1.3 s on, sample for sample, with the length the last page states (libsndfile starts
    /// 12,146 samples early on this file). After a seek FFmpeg's timestamps are off by 2 samples here (it is
    /// exact on encoders' files: the tests above, and the catalog's libvorbis tracks), which is measured.
    @Test func samplesStampedBeforeTheStartAreDropped() throws {
        let whole = try Self.make(Self.kinds.first { $0.file == "vorbis.ogg" }!)
        let cut = Self.folder.appendingPathComponent("stream-copy-cut.ogg").path
        _ = try Self.run(Self.ffmpeg!, ["-v", "error", "-y", "-ss", "1.3", "-i", whole, "-c", "copy", cut])
        let ours = try AudioReader.read(cut), original = try AudioReader.read(whole)
        #expect(ours.samples.count == (try #require(try AudioReader.info(cut).headerFrames)))
        let start = Int(1.3 * 44_100)
        #expect(difference(Array(ours.samples[..<200_000]), Array(original.samples[start..<(start + 200_000)])) == nil)
        let window = try AudioReader.read(cut, window: TimeWindow(start: 3, duration: 2)).samples
        let shift = (-4...4).first { s in difference(Array(window[10..<20_010]), Array(ours.samples[(3 * 44_100 + 10 + s)..<(3 * 44_100 + 20_010 + s)])) == nil }
        #expect(shift.map { abs($0) <= 2 } == true, "the window lies \(shift.map(String.init) ?? "more than 4 samples") from its place")
    }

    @Test func losslessFilesDecodeAsLibsndfileDoes() throws {
        for kind in Self.kinds where ["wav", "flac"].contains((kind.file as NSString).pathExtension) {
            let path = try Self.make(kind)
            let ffmpeg = try AudioReader.read(path, sampleRate: 11_025), libsndfile = try AudioReader.read(path, sampleRate: 11_025, decoder: .libsndfile)
            #expect(difference(ffmpeg.samples, libsndfile.samples) == nil, "\(kind.file)")
        }
    }

    @Test func aFileWithNoAudioStreamIsNamed() throws {
        guard let ffmpeg = Self.ffmpeg else { throw MissingTool("ffmpeg is not installed") }
        let path = Self.folder.appendingPathComponent("picture-only.mkv").path
        _ = try Self.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x48:r=10:d=1", "-c:v", "mpeg4", path])
        #expect { try AudioReader.read(path) } throws: { ($0 as? AudioError)?.reason.contains("no audio stream") == true }
    }
}

/// Where two signals first differ, and by how much at most (nil: equal, bit for bit), without printing them.
func difference(_ a: [Float], _ b: [Float]) -> String? {
    guard a != b else { return nil }
    guard a.count == b.count else { return "lengths \(a.count) and \(b.count)" }
    let first = a.indices.first { a[$0] != b[$0] }!
    let largest = zip(a, b).map { abs($0 - $1) }.max()!
    return "first differ at sample \(first) of \(a.count), by up to \(largest)"
}

struct MissingTool: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
