import ArgumentParser
import AudioIO
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print each audio file's format, channels, sample rate, duration, peak and RMS level.",
        discussion: """
        Reads every container and codec FFmpeg's libraries read (WAV, AIFF, FLAC, Ogg Vorbis and Opus, MP3, \
        M4A/AAC, WMA, the first audio stream of a video file, ...); the format is printed as the library \
        that decodes it names it: libsndfile for WAV and FLAC ("WAV (Microsoft) / Signed 16 bit PCM"), \
        FFmpeg for the rest, container / codec ("ogg / vorbis"). Levels are in dBFS over every \
        channel's samples. A file that cannot be read gets one line naming it and the reason; the other \
        files are still printed, and the exit code is 1 when any file failed.

        Example: fpbench info Datasets/ci/audio/birds/*.wav
        """)

    @Argument(help: "Audio files to describe.")
    var files: [String]

    func run() throws {
        var failures = 0
        for path in files {
            do {
                let info = try AudioReader.info(path)
                let header = info.headerFrames.map { Double($0) / info.sampleRate }
                let note = header == info.duration ? "" : header.map { String(format: " (its header states %.3f s)", $0) }
                    ?? info.statedDuration.map { String(format: " (its container states about %.3f s)", $0) } ?? " (the header states no length)"
                print("\(path): \(info.format), \(info.channels) ch, \(Int(info.sampleRate)) Hz, "
                      + String(format: "%.3f s%@, peak %.1f dBFS, RMS %.1f dBFS", info.duration, note, info.peakDBFS, info.rmsDBFS))
            } catch {
                failures += 1
                Console.error("\(error)")
            }
        }
        if failures > 0 {
            Console.error("\(failures) of \(files.count) files could not be read")
            throw ExitCode.failure
        }
    }
}
