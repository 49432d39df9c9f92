import Foundation

/// One opened audio file, decoded block by block: the seam between `AudioReader` and a decoding library
/// (`MediaFile`: FFmpeg's libraries; `SoundFile`: libsndfile).
protocol AudioDecoder: AnyObject {
    var path: String { get }
    var channels: Int { get }
    var sampleRate: Double { get }
    /// The length the container states exactly; nil when it states none, or only an estimate (an MP3
    /// without a frame-count header). Never trusted for more than a check: readers decode until the end.
    var frames: Int? { get }
    /// "ogg / vorbis", "wav / pcm_s16le", ...
    var formatName: String { get }
    /// Moves so that the next block starts at `frame` exactly.
    func seek(toFrame frame: Int) throws
    /// Decodes up to `maxFrames` interleaved Float32 frames in blocks of at most `blockFrames`, handing each
    /// block and its first frame's index (from where decoding began) over. Throws on non-finite samples.
    func forEachBlock(maxFrames: Int, blockFrames: Int, _ body: (UnsafeBufferPointer<Float>, Int) throws -> Void) throws
}

extension AudioDecoder {
    func forEachBlock(maxFrames: Int = .max, _ body: (UnsafeBufferPointer<Float>, Int) throws -> Void) throws {
        try forEachBlock(maxFrames: maxFrames, blockFrames: 32_768, body)
    }

    /// The container's duration in seconds, when it states one.
    var duration: Double? { frames.map { Double($0) / sampleRate } }
}

/// Which library decodes a file. FFmpeg's for every format (`AudioReader.defaultDecoder`): it reads every
/// container and codec of a researcher's collection (M4A/AAC, video soundtracks, WMA, AIFF, ...), gives the
/// lossless formats the same samples as libsndfile and decodes the lossy ones faster (README, "Decoding":
/// the figures per format). libsndfile remains the writer (`AudioWriter`) and, as `.libsndfile`, the reader
/// `fpbench bench` times beside it.
public enum DecoderLibrary: String, Sendable, CaseIterable {
    case ffmpeg, libsndfile

    /// The library and its version, as recorded in cache keys and results (a lossy file may decode to
    /// slightly different samples through another decoder or version).
    public var signature: String {
        switch self {
        case .ffmpeg: return MediaFile.versionSignature
        case .libsndfile: return SoundFile.versionSignature
        }
    }

    func open(_ path: String) throws -> AudioDecoder {
        try checkReadableFile(path)
        switch self {
        case .ffmpeg: return try MediaFile(path: path)
        case .libsndfile: return try SoundFile(path: path)
        }
    }
}

/// A regular, non-empty file, or the reason it is not (before any library sees it).
func checkReadableFile(_ path: String) throws {
    var status = stat()
    guard stat(path, &status) == 0 else {
        var link = stat()
        if lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK {
            throw AudioError.unreadable(path: path, reason: "a symbolic link that leads nowhere (or round in a loop)")
        }
        throw AudioError.missing(path: path)
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw AudioError.unreadable(path: path, reason: "a folder, not an audio file")
    default: throw AudioError.unreadable(path: path, reason: "not a regular file (a pipe or a device): save the audio to a file first")
    }
    if status.st_size == 0 { throw AudioError.empty(path: path) }
}

/// Header values no real file has: rates outside telephone to studio (1 Hz would make a resampler allocate
/// gigabytes) and channel counts past 64 are a damaged header.
func checkPlausible(path: String, channels: Int, sampleRate: Int) throws {
    if channels <= 0 || channels > 64 { throw AudioError.unreadable(path: path, reason: "the header states \(channels) channels") }
    if !(1000...768_000).contains(sampleRate) {
        throw AudioError.unreadable(path: path, reason: "the header states an implausible sample rate of \(sampleRate) Hz")
    }
}

/// The first index in `block` of a NaN or infinity.
func firstNonFinite(_ block: UnsafeBufferPointer<Float>) -> Int? { block.firstIndex { !$0.isFinite } }
