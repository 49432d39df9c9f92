#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>

// Macros Swift cannot import, as values.
static inline int fpb_averror_eof(void) { return AVERROR_EOF; }
static inline int fpb_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline long long fpb_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int fpb_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int fpb_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
