// FFmpeg's libraries, loaded when first needed (dlopen), not linked: linking libavformat brings ~150
// shared libraries that cost every fpbench process ~25 ms to start, even one that decodes only WAV
// (measured: 13 ms -> 40 ms for `fpbench --help`). The headers give the types; `fpb_ffmpeg()` gives
// the functions, typed as the headers declare them.
#ifndef FPB_CFFMPEG_H
#define FPB_CFFMPEG_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>

#define FPB_FUNCTION(name) __typeof__(name) *_Nonnull name;

/// Every FFmpeg function fpbench calls.
struct fpb_ffmpeg {
    FPB_FUNCTION(avformat_version) FPB_FUNCTION(avcodec_version) FPB_FUNCTION(swresample_version)
    FPB_FUNCTION(av_log_set_level) FPB_FUNCTION(av_strerror) FPB_FUNCTION(av_rescale_q)
    FPB_FUNCTION(avformat_open_input) FPB_FUNCTION(avformat_find_stream_info) FPB_FUNCTION(av_find_best_stream)
    FPB_FUNCTION(avformat_close_input) FPB_FUNCTION(av_read_frame) FPB_FUNCTION(av_seek_frame) FPB_FUNCTION(avformat_seek_file)
    FPB_FUNCTION(av_packet_alloc) FPB_FUNCTION(av_packet_free) FPB_FUNCTION(av_packet_unref)
    FPB_FUNCTION(av_frame_alloc) FPB_FUNCTION(av_frame_free)
    FPB_FUNCTION(avcodec_alloc_context3) FPB_FUNCTION(avcodec_free_context) FPB_FUNCTION(avcodec_parameters_to_context)
    FPB_FUNCTION(avcodec_open2) FPB_FUNCTION(avcodec_send_packet) FPB_FUNCTION(avcodec_receive_frame) FPB_FUNCTION(avcodec_flush_buffers)
    FPB_FUNCTION(swr_alloc_set_opts2) FPB_FUNCTION(swr_init) FPB_FUNCTION(swr_convert) FPB_FUNCTION(swr_free)
};

/// The functions, loaded once (thread-safe); NULL if a library or a function is missing, with the
/// reason in `*error`.
const struct fpb_ffmpeg *_Nullable fpb_ffmpeg(const char *_Nullable *_Nonnull error);

// Macros Swift cannot import, as values.
static inline int fpb_averror_eof(void) { return AVERROR_EOF; }
static inline int fpb_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline long long fpb_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int fpb_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int fpb_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

#endif
