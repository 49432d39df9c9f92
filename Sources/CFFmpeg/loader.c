#include "CFFmpeg.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define FPB_SONAME(lib, major) "lib" lib ".so." AV_STRINGIFY(major)

static struct fpb_ffmpeg functions;
static const char *failure;
static char message[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/// The library built against these headers' major version (its ABI), or NULL with `failure` set. Not with
/// RTLD_DEEPBIND, though it took about 7 ms off a 1 s Ogg's process: the sanitizers' runtimes stop a program that
/// uses it, and FFmpeg would free with glibc what a preloaded allocator gave it (docs/speed.md).
static void *open_library(const char *soname) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(message, sizeof message, "FFmpeg's %s cannot be loaded (%s); scripts/setup.sh installs it", soname, dlerror());
        failure = message;
    }
    return library;
}

static void load(void) {
    void *format = open_library(FPB_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR));
    void *codec = format ? open_library(FPB_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR)) : NULL;
    void *resample = codec ? open_library(FPB_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR)) : NULL;
    void *util = resample ? open_library(FPB_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR)) : NULL;
    if (!util) return;
#define FPB_LOAD(library, name) \
    if (!(*(void **)&functions.name = dlsym(library, #name))) { \
        snprintf(message, sizeof message, "FFmpeg's libraries lack %s", #name); \
        failure = message; \
        return; \
    }
    FPB_LOAD(format, avformat_version) FPB_LOAD(codec, avcodec_version) FPB_LOAD(resample, swresample_version)
    FPB_LOAD(util, av_log_set_level) FPB_LOAD(util, av_strerror) FPB_LOAD(util, av_rescale_q)
    FPB_LOAD(format, avformat_open_input) FPB_LOAD(format, avformat_find_stream_info) FPB_LOAD(format, av_find_best_stream)
    FPB_LOAD(format, avformat_close_input) FPB_LOAD(format, av_read_frame) FPB_LOAD(format, av_seek_frame) FPB_LOAD(format, avformat_seek_file)
    FPB_LOAD(codec, av_packet_alloc) FPB_LOAD(codec, av_packet_free) FPB_LOAD(codec, av_packet_unref)
    FPB_LOAD(util, av_frame_alloc) FPB_LOAD(util, av_frame_free)
    FPB_LOAD(codec, avcodec_alloc_context3) FPB_LOAD(codec, avcodec_free_context) FPB_LOAD(codec, avcodec_parameters_to_context)
    FPB_LOAD(codec, avcodec_open2) FPB_LOAD(codec, avcodec_send_packet) FPB_LOAD(codec, avcodec_receive_frame) FPB_LOAD(codec, avcodec_flush_buffers)
    FPB_LOAD(resample, swr_alloc_set_opts2) FPB_LOAD(resample, swr_init) FPB_LOAD(resample, swr_convert) FPB_LOAD(resample, swr_free)
#undef FPB_LOAD
}

const struct fpb_ffmpeg *fpb_ffmpeg(const char **error) {
    pthread_once(&once, load);
    *error = failure;
    return failure ? NULL : &functions;
}
