#ifndef CIPHERDEX_CZLIB_SHIM_H
#define CIPHERDEX_CZLIB_SHIM_H

// zlib, for the page text kept for previews (compressed before SQLCipher encrypts the page that
// holds it; ARCHITECTURE.md, "Full-text search"). libz.so.1 is already loaded by every process
// that links poppler, cairo or libpng.
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/// A deflate stream for many values in turn (`cipherdex_deflate_value`), or NULL.
static inline z_stream *cipherdex_deflate_new(int level) {
    z_stream *stream = (z_stream *)calloc(1, sizeof(z_stream));
    if (stream == NULL) return NULL;
    if (deflateInit2_(stream, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, (int)sizeof(z_stream))
        != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

static inline void cipherdex_deflate_free(z_stream *stream) {
    deflateEnd(stream);
    free(stream);
}

/// One whole zlib stream (RFC 1950) of `input` into `output`, with the preset dictionary when
/// `dictionary` is not NULL: the bytes written, or -1 when a call failed or `output` is too
/// small.
static inline long cipherdex_deflate_value(
    z_stream *stream, const unsigned char *dictionary, unsigned int dictionaryLength, const unsigned char *input,
    unsigned int inputLength, unsigned char *output, unsigned int outputCapacity) {
    if (deflateReset(stream) != Z_OK) return -1;
    if (dictionary != NULL && deflateSetDictionary(stream, dictionary, dictionaryLength) != Z_OK) return -1;
    stream->next_in = (Bytef *)input;
    stream->avail_in = inputLength;
    stream->next_out = output;
    stream->avail_out = outputCapacity;
    if (deflate(stream, Z_FINISH) != Z_STREAM_END || stream->avail_in != 0) return -1;
    return (long)(outputCapacity - stream->avail_out);
}

/// Inflates the whole zlib stream `input` into exactly `outputLength` bytes: 0 on success, -1
/// otherwise (damaged, shorter or longer, bytes after the stream). With `dictionary`, the stream
/// must ask for a preset dictionary and name this one (its Adler-32); without, it must not ask.
static inline int cipherdex_inflate_value(
    const unsigned char *dictionary, unsigned int dictionaryLength, const unsigned char *input,
    unsigned int inputLength, unsigned char *output, unsigned int outputLength) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit_(&stream, ZLIB_VERSION, (int)sizeof(z_stream)) != Z_OK) return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = inputLength;
    stream.next_out = output;
    stream.avail_out = outputLength;
    int status = inflate(&stream, Z_FINISH);
    if (dictionary != NULL) {
        if (status != Z_NEED_DICT || inflateSetDictionary(&stream, dictionary, dictionaryLength) != Z_OK) {
            inflateEnd(&stream);
            return -1;
        }
        status = inflate(&stream, Z_FINISH);
    }
    int whole = status == Z_STREAM_END && stream.avail_out == 0 && stream.avail_in == 0;
    inflateEnd(&stream);
    return whole ? 0 : -1;
}

#endif
