import CFFmpeg
import Foundation

/// A file's first audio stream decoded by FFmpeg's libraries (libavformat demuxes any container, libavcodec
/// decodes, libswresample turns each decoded frame into interleaved Float32 at the stream's own rate and
/// layout). One thread per decoder, so output bits never depend on the machine.
final class MediaFile: AudioDecoder {
    let path: String
    let channels: Int
    let sampleRate: Double
    let frames: Int?
    /// The length the container states where it is only an estimate (MP4, Matroska, ASF, MP3), seconds.
    let statedDuration: Double?
    let formatName: String

    /// FFmpeg's functions, loaded on first use (`CFFmpeg.h` says why they are not linked), or nil with
    /// the reason in `loadFailure`.
    private static let functions: fpb_ffmpeg? = {
        var error: UnsafePointer<CChar>?
        return fpb_ffmpeg(&error)?.pointee
    }()

    private static var loadFailure: String {
        var error: UnsafePointer<CChar>?
        _ = fpb_ffmpeg(&error)
        return error.map { String(cString: $0) } ?? ""
    }

    /// Used only once `init` has found the functions loaded.
    private static var ff: fpb_ffmpeg { functions! }
    private var ff: fpb_ffmpeg { Self.ff }

    static let versionSignature: String = {
        guard functions != nil else { return "ffmpeg (\(loadFailure))" }
        func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        return "ffmpeg libavformat \(dotted(ff.avformat_version())) libavcodec \(dotted(ff.avcodec_version())) libswresample \(dotted(ff.swresample_version()))"
    }()

    /// Seconds decoded before a seek's target and thrown away, so that the decoder's state (a Vorbis block's
    /// overlap, MP3's bit reservoir, Opus's energy prediction) is what it would be had it decoded from the
    /// start: the samples after a seek are then the same as a whole decoding's (tested per format).
    static let seekPreroll = 2.0

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var converter: OpaquePointer?
    /// The sample format `converter` was made for.
    private var converterInput: Int32?
    /// The last decoded frame, converted.
    private var converted: [Float] = []
    private let streamIndex: Int32
    private let timeBase: AVRational
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// Sample 0's timestamp, in samples: the stream's start (where the container's timestamps are exact).
    /// Decoded samples before it are dropped, as the format asks: the first Vorbis packets of a libvorbis
    /// file decode to 128 samples stamped before the start, which vorbisfile drops and FFmpeg hands out.
    /// nil: samples are counted from the first decoded one.
    private let origin: Int64?
    /// Samples before this one (counted from sample 0) are decoded and dropped: where a seek landed early.
    private var skipUntil: Int64 = 0
    /// Where the next decoded sample lies when a frame carries no timestamp.
    private var position: Int64 = 0
    private var finished = false
    /// Packets the decoder refused (damaged), skipped as the `ffmpeg` command skips them.
    private(set) var skippedPackets = 0
    /// Whether `frame` holds a decoded frame not yet handed out (after a seek's check).
    private var pending = false

    /// Opens `path`, which `checkReadableFile` has found to be a regular, non-empty file.
    init(path: String) throws {
        self.path = path
        guard Self.functions != nil else { throw AudioError.unsupported(path: path, reason: Self.loadFailure) }
        let ff = Self.ff
        packet = ff.av_packet_alloc()
        frame = ff.av_frame_alloc()
        ff.av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>?
        var status = ff.avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let context else { throw Self.openError(path: path, status: status) }
        format = context
        status = ff.avformat_find_stream_info(context, nil)
        if status < 0 { throw AudioError.unreadable(path: path, reason: "cannot read its streams: \(Self.message(status))") }
        var decoder: UnsafePointer<AVCodec>?
        let index = ff.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let stream = context.pointee.streams[Int(index)] else {
            let container = String(cString: context.pointee.iformat.pointee.name)
            throw index == Self.decoderNotFound
                ? AudioError.unsupported(path: path, reason: "its audio codec has no decoder in this FFmpeg (\(container))")
                : AudioError.unreadable(path: path, reason: "no audio stream in this \(container) file")
        }
        streamIndex = index
        timeBase = stream.pointee.time_base
        guard let codec = ff.avcodec_alloc_context3(decoder) else { throw AudioError.unreadable(path: path, reason: "out of memory") }
        self.codec = codec
        _ = ff.avcodec_parameters_to_context(codec, stream.pointee.codecpar)
        codec.pointee.thread_count = 1
        codec.pointee.pkt_timebase = stream.pointee.time_base
        status = ff.avcodec_open2(codec, decoder, nil)
        if status < 0 { throw AudioError.unreadable(path: path, reason: "cannot open its \(String(cString: decoder.pointee.name)) decoder: \(Self.message(status))") }
        channels = Int(codec.pointee.ch_layout.nb_channels)
        let rate = Int(codec.pointee.sample_rate)
        try checkPlausible(path: path, channels: channels, sampleRate: rate)
        sampleRate = Double(rate)
        formatName = "\(String(cString: context.pointee.iformat.pointee.name)) / \(String(cString: decoder.pointee.name))"
        // The length the container states, where it states it exactly (for Ogg Opus, less the pre-skip the
        // decoder drops); other containers' lengths are estimates (an MP3's frame count includes the encoder's
        // padding, ASF's is in milliseconds), so those files are decoded to find where they end.
        let demuxer = String(cString: context.pointee.iformat.pointee.name)
        let exact = Self.exactContainers.contains(demuxer)
        let start = stream.pointee.start_time
        origin = exact && start != fpb_nopts_value() ? ff.av_rescale_q(start, timeBase, AVRational(num: 1, den: Int32(rate))) : nil
        let duration = stream.pointee.duration
        if exact, demuxer != "mp3", duration != fpb_nopts_value(), duration > 0 {
            let count = ff.av_rescale_q(duration, timeBase, AVRational(num: 1, den: Int32(rate))) - Int64(stream.pointee.codecpar.pointee.initial_padding)
            frames = count > 0 && count <= 384_000 * 86_400 ? Int(count) : nil
        } else {
            frames = nil
        }
        let estimate = duration != fpb_nopts_value() && duration > 0 ? Double(duration) * Double(timeBase.num) / Double(timeBase.den)
            : context.pointee.duration > 0 ? Double(context.pointee.duration) / 1_000_000 : nil  // AV_TIME_BASE
        statedDuration = frames == nil ? estimate.flatMap { $0.isFinite && $0 < 86_400 * 7 ? $0 : nil } : nil
    }

    /// Containers whose timestamps place every decoded sample exactly, so that a seek lands where asked (a
    /// window is then the same samples as the slice of a whole decoding: tested per format). Elsewhere
    /// (Matroska and ASF count milliseconds, MP4's AAC priming moves after a seek) a window is decoded from
    /// the start and the samples before it dropped.
    private static let exactContainers: Set<String> = ["wav", "aiff", "flac", "ogg", "mp3"]

    deinit {
        ff.swr_free(&converter)
        ff.avcodec_free_context(&codec)
        ff.avformat_close_input(&format)
        ff.av_packet_free(&packet)
        ff.av_frame_free(&frame)
    }

    func seek(toFrame target: Int) throws {
        guard target > 0 else { return }
        guard let origin else { return skipUntil = Int64(target) }
        let start = max(0, Int64(target) - Int64(Self.seekPreroll * sampleRate))
        let timestamp = ff.av_rescale_q(origin + start, AVRational(num: 1, den: Int32(sampleRate)), timeBase)
        guard ff.av_seek_frame(format, streamIndex, timestamp, AVSEEK_FLAG_BACKWARD) >= 0 else { return try restart(discardingUpTo: target) }
        ff.avcodec_flush_buffers(codec)
        finished = false
        skipUntil = Int64(target)
        // The first frame after the seek must start at or before the target, or the seek overshot.
        guard try nextFrame(), frame!.pointee.best_effort_timestamp != fpb_nopts_value(),
              samplePosition(of: frame!) <= Int64(target) else { return try restart(discardingUpTo: target) }
        pending = true
    }

    func forEachBlock(maxFrames: Int, blockFrames: Int, _ body: (UnsafeBufferPointer<Float>, Int) throws -> Void) throws {
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var filled = 0, done = 0
        func flush() throws {
            guard filled > 0 else { return }
            try block.withUnsafeBufferPointer { all in
                let part = UnsafeBufferPointer(rebasing: all[..<(filled * channels)])
                if let bad = firstNonFinite(part) { throw AudioError.nonFinite(path: path, frame: done + bad / channels) }
                try body(part, done)
            }
            done += filled
            filled = 0
        }
        while done + filled < maxFrames {
            if pending { pending = false } else if try !nextFrame() { break }
            let count = try convert(frame!)
            // Drop what lies before a seek's target (the preroll).
            let start = samplePosition(of: frame!)
            position = start + Int64(count)
            var offset = Int(max(0, min(Int64(count), skipUntil - start)))
            while offset < count && done + filled < maxFrames {
                let take = min(count - offset, blockFrames - filled, maxFrames - done - filled)
                block.withUnsafeMutableBufferPointer { out in
                    converted.withUnsafeBufferPointer { input in
                        out.baseAddress!.advanced(by: filled * channels).update(from: input.baseAddress!.advanced(by: offset * channels), count: take * channels)
                    }
                }
                offset += take
                filled += take
                if filled == blockFrames { try flush() }
            }
        }
        try flush()
    }

    // MARK: Decoding

    /// Decodes the next frame of the audio stream into `frame`; false at the end. A packet the decoder refuses
    /// (damaged: invalid data, or an invalid argument from Vorbis) is skipped and counted, as FFmpeg's own
    /// command skips it: what it held is missing, which the reader reports with the count.
    private func nextFrame() throws -> Bool {
        while true {
            let received = ff.avcodec_receive_frame(codec, frame)
            if received >= 0 { return true }
            if received == fpb_averror_eof() { return false }
            if received != fpb_averror_eagain() { skippedPackets += 1 }
            if finished { return false }
            let read = ff.av_read_frame(format, packet)
            if read < 0 {
                if read != fpb_averror_eof() && read != Self.invalidData { throw AudioError.unreadable(path: path, reason: Self.message(read)) }
                finished = true
                _ = ff.avcodec_send_packet(codec, nil)  // drain
                continue
            }
            defer { ff.av_packet_unref(packet) }
            guard packet!.pointee.stream_index == streamIndex else { continue }
            let sent = ff.avcodec_send_packet(codec, packet)
            if sent < 0 && sent != fpb_averror_eagain() { skippedPackets += 1 }
        }
    }

    /// Puts `frame`'s samples into `converted` as interleaved Float32 at the stream's rate and layout;
    /// returns their count per channel.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> Int {
        let count = Int(frame.pointee.nb_samples), frameChannels = Int(frame.pointee.ch_layout.nb_channels)
        guard frameChannels == channels, Int(frame.pointee.sample_rate) == Int(sampleRate) else {
            throw AudioError.unreadable(path: path, reason: "its audio changes from \(channels) channels at \(Int(sampleRate)) Hz to \(frameChannels) at \(frame.pointee.sample_rate) Hz mid-stream")
        }
        if converter == nil || converterInput != frame.pointee.format {
            ff.swr_free(&converter)
            var outLayout = frame.pointee.ch_layout, inLayout = frame.pointee.ch_layout
            var status = ff.swr_alloc_set_opts2(&converter, &outLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &inLayout,
                                             AVSampleFormat(frame.pointee.format), Int32(sampleRate), 0, nil)
            if status >= 0 { status = ff.swr_init(converter) }
            if status < 0 { throw AudioError.unreadable(path: path, reason: "cannot convert its samples: \(Self.message(status))") }
            converterInput = frame.pointee.format
        }
        if converted.count < count * channels { converted = [Float](repeating: 0, count: count * channels) }
        let done = converted.withUnsafeMutableBytes { raw -> Int32 in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: channels) {
                ff.swr_convert(converter, &out, Int32(count), $0, Int32(count))
            }
        }
        if done < 0 { throw AudioError.unreadable(path: path, reason: "cannot convert its samples: \(Self.message(done))") }
        return Int(done)
    }

    // MARK: Positions

    /// Where `frame` starts, in samples from sample 0 (its timestamp, or where the last frame ended).
    private func samplePosition(of frame: UnsafeMutablePointer<AVFrame>) -> Int64 {
        let timestamp = frame.pointee.best_effort_timestamp
        guard timestamp != fpb_nopts_value(), let origin else { return position }
        return ff.av_rescale_q(timestamp, timeBase, AVRational(num: 1, den: Int32(sampleRate))) - origin
    }

    /// Back to the start, then decodes and drops up to `target`: where a seek cannot be trusted.
    private func restart(discardingUpTo target: Int) throws {
        guard ff.av_seek_frame(format, streamIndex, 0, AVSEEK_FLAG_BACKWARD) >= 0 || ff.avformat_seek_file(format, -1, .min, 0, 0, 0) >= 0 else {
            throw AudioError.unreadable(path: path, reason: "could not return to its start to reach frame \(target)")
        }
        ff.avcodec_flush_buffers(codec)
        finished = false
        pending = false
        position = 0
        skipUntil = Int64(target)
    }

    // MARK: Errors

    private static let invalidData = fpb_averror_invaliddata()
    private static let decoderNotFound = fpb_averror_decoder_not_found()

    static func message(_ status: Int32) -> String {
        // Several of FFmpeg's decoders and demuxers return a bare -1 on data they cannot parse; av_strerror
        // reads it as EPERM ("Operation not permitted"), which misleads: it is damaged data.
        if status == -1 { return "damaged or unparsable data (FFmpeg error -1)" }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = ff.av_strerror(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func openError(path: String, status: Int32) -> AudioError {
        if status == invalidData {
            return .unsupported(path: path, reason: "no audio FFmpeg can read: not a container or codec it knows (not audio, or damaged)")
        }
        return .unreadable(path: path, reason: "no audio FFmpeg can read (damaged, or not audio): \(message(status))")
    }
}
