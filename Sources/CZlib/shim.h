#ifndef CIPHERDEX_CZLIB_SHIM_H
#define CIPHERDEX_CZLIB_SHIM_H

// zlib, for the page text kept for previews (compressed before SQLCipher encrypts the page that
// holds it; ARCHITECTURE.md, "Full-text search"). libz.so.1 is already loaded by every process
// that links poppler, cairo or libpng.
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/// A raw deflate stream (no zlib wrapper: `cipherdex_deflate_value` writes the header and the
/// trailer itself) at `level` for many values in turn, or NULL.
static inline z_stream *cipherdex_deflate_new(int level) {
    z_stream *stream = (z_stream *)calloc(1, sizeof(z_stream));
    if (stream == NULL) return NULL;
    if (deflateInit2_(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, (int)sizeof(z_stream))
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

/// The Adler-32 of `bytes` (zlib's dictionary id, and its stream trailer).
static inline unsigned long cipherdex_adler32(const unsigned char *bytes, unsigned int length) {
    return adler32(adler32(0L, Z_NULL, 0), bytes, length);
}

/// One whole zlib stream (RFC 1950) of `input` into `output` through a raw stream made by
/// `cipherdex_deflate_new(level)`, with the preset dictionary (whose Adler-32 is `dictionaryID`)
/// when `dictionary` is not NULL: the bytes written, or -1 when a call failed or `output` is too
/// small. The bytes are those zlib's own wrapper writes at that level — header (deflate, 32 KiB
/// window, FLEVEL as zlib sets it, FDICT and the dictionary's id), the deflate data, the
/// big-endian Adler-32 of `input` — without zlib checksumming the 8 KiB dictionary again for
/// every value (`deflateSetDictionary` on a wrapped stream does).
static inline long cipherdex_deflate_value(
    z_stream *stream, int level, const unsigned char *dictionary, unsigned int dictionaryLength,
    unsigned long dictionaryID, const unsigned char *input, unsigned int inputLength, unsigned char *output,
    unsigned int outputCapacity) {
    unsigned int headerLength = dictionary != NULL ? 6 : 2;
    if (outputCapacity < headerLength + 4) return -1;
    // zlib's deflate.c: FLEVEL 0 below level 2, 1 below 6, 2 at 6, 3 above; FCHECK makes the
    // header a multiple of 31 (zlib adds 31 when it already is one).
    unsigned int levelFlags = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned int header = (0x78u << 8) | (levelFlags << 6) | (dictionary != NULL ? 0x20u : 0u);
    header += 31 - (header % 31);
    output[0] = (unsigned char)(header >> 8);
    output[1] = (unsigned char)(header & 0xFF);
    if (dictionary != NULL) {
        output[2] = (unsigned char)(dictionaryID >> 24);
        output[3] = (unsigned char)(dictionaryID >> 16);
        output[4] = (unsigned char)(dictionaryID >> 8);
        output[5] = (unsigned char)dictionaryID;
    }
    if (deflateReset(stream) != Z_OK) return -1;
    if (dictionary != NULL && deflateSetDictionary(stream, dictionary, dictionaryLength) != Z_OK) return -1;
    stream->next_in = (Bytef *)input;
    stream->avail_in = inputLength;
    stream->next_out = output + headerLength;
    stream->avail_out = outputCapacity - headerLength - 4;
    if (deflate(stream, Z_FINISH) != Z_STREAM_END || stream->avail_in != 0) return -1;
    unsigned char *trailer = stream->next_out;
    unsigned long check = cipherdex_adler32(input, inputLength);
    trailer[0] = (unsigned char)(check >> 24);
    trailer[1] = (unsigned char)(check >> 16);
    trailer[2] = (unsigned char)(check >> 8);
    trailer[3] = (unsigned char)check;
    return (long)(trailer + 4 - output);
}

/// A raw inflate stream (no zlib wrapper: `cipherdex_inflate_stream_value` reads the header and
/// the trailer itself) for many values in turn, or NULL.
static inline z_stream *cipherdex_inflate_new(void) {
    z_stream *stream = (z_stream *)calloc(1, sizeof(z_stream));
    if (stream == NULL) return NULL;
    if (inflateInit2_(stream, -15, ZLIB_VERSION, (int)sizeof(z_stream)) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

static inline void cipherdex_inflate_free(z_stream *stream) {
    inflateEnd(stream);
    free(stream);
}

/// Inflates the whole zlib stream (RFC 1950) `input` into exactly `outputLength` bytes through a
/// reused raw stream: 0 on success, -1 otherwise (damaged, shorter or longer, bytes after the
/// stream). Reading the wrapper here spares zlib checksumming the 8 KiB dictionary again for
/// every value (`inflateSetDictionary` on a wrapped stream does: half of a page's inflate time).
/// The header is checked here (deflate, window ≤ 32 KiB, FCHECK; FDICT set and the id
/// `dictionaryID` exactly when `dictionary` is given), then the raw deflate data must fill
/// `output` exactly and end, followed by exactly the 4-byte big-endian Adler-32 of the output.
static inline int cipherdex_inflate_stream_value(
    z_stream *stream, const unsigned char *dictionary, unsigned int dictionaryLength, unsigned long dictionaryID,
    const unsigned char *input, unsigned int inputLength, unsigned char *output, unsigned int outputLength) {
    if (inputLength < 2 + 4) return -1;
    unsigned int cmf = input[0], flg = input[1];
    if ((cmf & 0x0F) != Z_DEFLATED || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0) return -1;
    unsigned int offset = 2;
    int asksForDictionary = (flg & 0x20) != 0;
    if (asksForDictionary != (dictionary != NULL)) return -1;
    if (asksForDictionary) {
        if (inputLength < offset + 4 + 4) return -1;
        unsigned long id = ((unsigned long)input[2] << 24) | ((unsigned long)input[3] << 16)
            | ((unsigned long)input[4] << 8) | (unsigned long)input[5];
        if (id != dictionaryID) return -1;
        offset += 4;
    }
    if (inflateReset(stream) != Z_OK) return -1;
    if (dictionary != NULL && inflateSetDictionary(stream, dictionary, dictionaryLength) != Z_OK) return -1;
    stream->next_in = (Bytef *)(input + offset);
    stream->avail_in = inputLength - offset;
    stream->next_out = output;
    stream->avail_out = outputLength;
    if (inflate(stream, Z_FINISH) != Z_STREAM_END || stream->avail_out != 0 || stream->avail_in != 4) return -1;
    const unsigned char *trailer = stream->next_in;
    unsigned long check = ((unsigned long)trailer[0] << 24) | ((unsigned long)trailer[1] << 16)
        | ((unsigned long)trailer[2] << 8) | (unsigned long)trailer[3];
    return check == cipherdex_adler32(output, outputLength) ? 0 : -1;
}

#endif
