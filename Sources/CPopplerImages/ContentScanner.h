// A content stream scanner that finds what paints images: `/Name Do` and inline images (BI … ID
// … EI). Only as much of PDF's content syntax as that needs: names (with #xx escapes), strings,
// hex strings, arrays, dictionaries, comments and operators; operands are otherwise skipped.

#ifndef CIPHERDEX_CONTENT_SCANNER_H
#define CIPHERDEX_CONTENT_SCANNER_H

#include <poppler/Object.h>  // before Stream.h (PopplerCore.h)

#include <poppler/Stream.h>

#include <string>
#include <vector>

namespace cdx_core {

/// The bytes of a sequence of streams, read in turn (each reset, read to its end and closed),
/// joined as poppler's lexer joins a page's content streams: without a separator.
class byte_source {
public:
    /// Reads `streams` (not owned; they must outlive the source).
    explicit byte_source(std::vector<Stream *> streams) : streams(std::move(streams)) {}
    byte_source(const byte_source &) = delete;
    byte_source &operator=(const byte_source &) = delete;
    ~byte_source();

    /// The next byte, or -1 at the end.
    int get() { return position < length || fill() ? buffer[position++] : -1; }
    /// The next byte without taking it, or -1 at the end.
    int peek() { return position < length || fill() ? buffer[position] : -1; }

private:
    /// Reads the next chunk (from the next stream when this one ends); false at the end.
    bool fill();

    std::vector<Stream *> streams;
    size_t index = 0;
    bool started = false;
    unsigned char buffer[16384];
    int length = 0;
    int position = 0;
};

/// What an inline image's dictionary says (keys in full or abbreviated).
struct inline_image {
    /// /W, /H, /BPC: -1 when absent or not a number.
    long long width = -1;
    long long height = -1;
    long long bits = -1;
    /// /IM true.
    bool mask = false;
    /// Components of /CS when it is a device colour space or /I (Indexed); 0 when unknown.
    int components = 0;
    /// The name of /F (the last filter when it is an array), empty when there is none.
    std::string filter;
};

/// What the scanner reports.
class content_handler {
public:
    virtual ~content_handler() = default;
    /// `/name Do`; false stops the scan.
    virtual bool paint(const std::string &name) = 0;
    /// An inline image; false stops the scan.
    virtual bool paint_inline(const inline_image &image) = 0;
};

/// Reads `source` to its end (or until `handler` stops it), reporting every `Do` and inline image.
void scan_content(byte_source &source, content_handler &handler);

}  // namespace cdx_core

#endif
