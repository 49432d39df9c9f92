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
    /// Damaged packets skipped so far (decoding goes on past them, as the `ffmpeg` command does).
    var skippedPackets: Int { get }
    /// The length the container states as an estimate only (then `frames` is nil), in seconds.
    var statedDuration: Double? { get }
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

    var skippedPackets: Int { 0 }
    var statedDuration: Double? { nil }

    /// The container's duration in seconds, when it states one.
    var duration: Double? { frames.map { Double($0) / sampleRate } }
}

/// Which library decodes a file, chosen per format by measurement (docs/speed.md, "Decoding"; `fpbench bench` times
/// both): libsndfile for WAV and FLAC, which it decodes 1.3 times as fast as FFmpeg, to the same samples
/// (tested); FFmpeg's libraries for every other format: Ogg Vorbis 2.6, Opus 2.9 and MP3 1.1 times as fast as
/// libsndfile, and M4A/AAC, WMA, AIFF, a video's soundtrack, which libsndfile does not read. libsndfile is
/// also the writer (`AudioWriter`).
public enum DecoderLibrary: String, Sendable, CaseIterable {
    case ffmpeg, libsndfile

    /// The library that reads `path`, from its first bytes (not its name): a RIFF/WAVE, RF64 or FLAC file
    /// goes to libsndfile, anything else to FFmpeg.
    public static func choice(for path: String) -> DecoderLibrary {
        guard let handle = RegularFile.handle(path) else { return .ffmpeg }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        func text(_ range: Range<Int>) -> String { head.count >= range.upperBound ? String(decoding: head[range], as: UTF8.self) : "" }
        if text(0..<4) == "fLaC" { return .libsndfile }
        if ["RIFF", "RF64"].contains(text(0..<4)) && text(8..<12) == "WAVE" { return .libsndfile }
        return .ffmpeg
    }

    /// What decodes which format, with the libraries' versions, as cache keys and results record it (a lossy
    /// file may decode to slightly different samples through another decoder or version).
    public static let policy = "\(SoundFile.versionSignature) for WAV and FLAC, \(MediaFile.versionSignature) for the rest"

    /// `path` opened by the library chosen for it, or by the other when the chosen one cannot open it (a valid
    /// Ogg file of an old libvorbis that FFmpeg rejects, which libsndfile reads), said once per file.
    static func open(_ path: String) throws -> AudioDecoder {
        let chosen = choice(for: path)
        do { return try chosen.open(path) } catch let refusal as AudioError {
            guard refusal.isLibraryRefusal, let other = allCases.first(where: { $0 != chosen }), let file = try? other.open(path) else { throw refusal }
            DecodeNotice.once(path, "library", "cannot be opened by \(chosen.rawValue) (\(refusal.reason)); read by \(other.rawValue)")
            return file
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
func firstNonFinite(_ block: UnsafeBufferPointer<Float>) -> Int? {
    // Infinity and NaN are the floats whose exponent bits are all set: tested 16 at a time (one vector
    // comparison each), and only a chunk that holds one is searched value by value.
    let exponent = SIMD16<UInt32>(repeating: 0x7f80_0000), raw = UnsafeRawBufferPointer(block)
    var i = 0
    while i &+ 16 <= block.count, !any(raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD16<UInt32>.self) & exponent .== exponent) { i &+= 16 }
    return block[i...].firstIndex { !$0.isFinite }
}
