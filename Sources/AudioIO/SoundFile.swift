import CSndFile
import Foundation

/// Formats libsndfile on Debian cannot decode; named up front so the error says why.
let knownUnsupportedExtensions: Set<String> = ["m4a", "aac", "mp4", "alac", "wma", "ape"]

/// A libsndfile handle opened for reading, decoded block by block (the writer's library, and the reader
/// before FFmpeg's: `DecoderLibrary.libsndfile`).
final class SoundFile: AudioDecoder {
    let path: String
    let channels: Int
    let sampleRate: Double
    let frames: Int?
    let seekable: Bool
    let format: Int32
    /// Integer samples (PCM in WAV, FLAC, AIFF), which libsndfile scales to floats: never infinite or NaN.
    private let integerSamples: Bool
    private let handle: OpaquePointer

    static let versionSignature = "libsndfile " + String(cString: sf_version_string()).replacingOccurrences(of: "libsndfile-", with: "")

    /// Opens `path`, which `checkReadableFile` has found to be a regular, non-empty file.
    init(path: String) throws {
        self.path = path
        let ext = (path as NSString).pathExtension.lowercased()
        if knownUnsupportedExtensions.contains(ext) {
            throw AudioError.unsupported(path: path, reason: ".\(ext) is not decoded by libsndfile (convert to WAV, FLAC, OGG, Opus or MP3)")
        }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            let code = sf_error(nil)
            let reason = String(cString: sf_strerror(nil))
            if code == Int32(SF_ERR_UNRECOGNISED_FORMAT) { throw AudioError.unsupported(path: path, reason: reason) }
            // libsndfile blames the file type when its MPEG decoder finds no frame in a regular file.
            if reason.contains("not a regular file") {
                throw AudioError.unreadable(path: path, reason: "no audio libsndfile can decode (not WAV, FLAC, OGG, Opus or MP3, or damaged)")
            }
            throw AudioError.unreadable(path: path, reason: reason)
        }
        self.handle = handle
        channels = Int(info.channels)
        sampleRate = Double(info.samplerate)
        // libsndfile says SF_COUNT_MAX (or 0) when the header gives no length; no length is believed
        // beyond what a day of audio at 384 kHz could hold.
        frames = info.frames > 0 && info.frames <= 384_000 * 86_400 ? Int(info.frames) : nil
        seekable = info.seekable != 0
        format = info.format
        let integers = [SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32]
        integerSamples = integers.map(Int32.init).contains(info.format & Int32(SF_FORMAT_SUBMASK))
        do { try checkPlausible(path: path, channels: Int(info.channels), sampleRate: Int(info.samplerate)) } catch {
            sf_close(handle)
            throw error
        }
    }

    deinit { sf_close(handle) }

    /// "OGG / Vorbis", "WAV / Signed 16 bit PCM", ...: libsndfile's own names.
    var formatName: String {
        func name(_ code: Int32) -> String {
            var info = SF_FORMAT_INFO(format: code, name: nil, extension: nil)
            sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            return info.name.map { String(cString: $0) } ?? "unknown"
        }
        let major = name(format & Int32(SF_FORMAT_TYPEMASK))
        let sub = name(format & Int32(SF_FORMAT_SUBMASK))
        return "\(major) / \(sub)"
    }

    /// Moves to `frame`, decoding and discarding where the format cannot seek.
    func seek(toFrame frame: Int) throws {
        if seekable, sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 { return }
        var remaining = frame
        try forEachBlock(maxFrames: frame) { block, _ in remaining -= block.count / channels }
        if remaining > 0 { throw AudioError.unreadable(path: path, reason: "could not skip to frame \(frame)") }
    }

    func forEachBlock(maxFrames: Int, blockFrames: Int, _ body: (UnsafeBufferPointer<Float>, Int) throws -> Void) throws {
        var buffer = [Float](repeating: 0, count: blockFrames * channels)
        var done = 0
        while done < maxFrames {
            let want = min(blockFrames, maxFrames - done)
            let got = Int(buffer.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, sf_count_t(want)) })
            if got <= 0 {
                if sf_error(handle) != 0 {
                    throw AudioError.unreadable(path: path, reason: String(cString: sf_strerror(handle)))
                }
                break
            }
            let count = got * channels
            try buffer.withUnsafeBufferPointer { all in
                let block = UnsafeBufferPointer(rebasing: all[..<count])
                if !integerSamples, let bad = firstNonFinite(block) { throw AudioError.nonFinite(path: path, frame: done + bad / channels) }
                try body(block, done)
            }
            done += got
        }
    }
}
