import CSndFile
import Foundation

/// The containers FingerprintBench writes, chosen by file extension.
public enum AudioFileFormat: String, Sendable, CaseIterable {
    case wav, flac, ogg, mp3, opus

    public init(path: String) throws {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let format = AudioFileFormat(rawValue: ext) else {
            throw AudioError.unsupported(path: path, reason: "cannot write .\(ext); use .wav, .flac, .ogg, .opus or .mp3")
        }
        self = format
    }

    /// libsndfile's format code: 16-bit PCM for WAV and FLAC (what people play back), Vorbis, MPEG layer III.
    var code: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_16)
        case .flac: return Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_16)
        case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        case .opus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        }
    }

    var isLossless: Bool { self == .wav || self == .flac }
}

public enum AudioWriter {
    /// Writes mono audio, atomically (a temporary file in the same folder, then a rename).
    /// Lossless formats store 16-bit PCM as round(x · 32768), so 16-bit input survives exactly.
    /// `compression` (lossy formats: libsndfile's level, 0 the best quality, 1 the smallest file; MP3
    /// at a constant bitrate) leaves the library's default when nil.
    public static func write(_ audio: Audio, to path: String, compression: Double? = nil) throws {
        let format = try AudioFileFormat(path: path)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp.\(format.rawValue)")
        var info = SF_INFO(frames: 0, samplerate: Int32(audio.sampleRate.rounded()), channels: 1,
                           format: format.code, sections: 0, seekable: 0)
        guard sf_format_check(&info) != 0 else {
            throw AudioError.unsupported(path: path, reason: "libsndfile cannot write \(format.rawValue) at \(Int(audio.sampleRate)) Hz")
        }
        guard let handle = sf_open(temporary.path, Int32(SFM_WRITE), &info) else {
            throw AudioError.writeFailed(path: path, reason: String(cString: sf_strerror(nil)))
        }
        if format == .mp3 {
            var mode = Int32(SF_BITRATE_MODE_CONSTANT)
            sf_command(handle, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
        }
        if var level = compression, !format.isLossless {
            sf_command(handle, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
        }
        let written: Int
        if format.isLossless {
            let pcm = audio.samples.map { Int16(clamping: Int(($0 * 32768).rounded())) }
            written = Int(pcm.withUnsafeBufferPointer { sf_writef_short(handle, $0.baseAddress, sf_count_t($0.count)) })
        } else {
            written = Int(audio.samples.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t($0.count)) })
        }
        let reason = String(cString: sf_strerror(handle))
        sf_close(handle)
        guard written == audio.samples.count else {
            try? FileManager.default.removeItem(at: temporary)
            throw AudioError.writeFailed(path: path, reason: reason)
        }
        guard rename(temporary.path, path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw AudioError.writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
