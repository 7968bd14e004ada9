#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>

/* nghttp2_frame is a union: the fields a client reads, without union access in Swift. */
static inline uint8_t cnghttp2_frame_type(const nghttp2_frame *frame) { return frame->hd.type; }
static inline uint8_t cnghttp2_frame_flags(const nghttp2_frame *frame) { return frame->hd.flags; }
static inline int32_t cnghttp2_frame_stream_id(const nghttp2_frame *frame) { return frame->hd.stream_id; }
static inline int cnghttp2_headers_category(const nghttp2_frame *frame) { return (int)frame->headers.cat; }
static inline int32_t cnghttp2_goaway_last_stream_id(const nghttp2_frame *frame) { return frame->goaway.last_stream_id; }
static inline uint32_t cnghttp2_goaway_error_code(const nghttp2_frame *frame) { return frame->goaway.error_code; }
#endif
