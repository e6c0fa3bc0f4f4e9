#ifndef CIPHERDEX_CPOPPLERTEXT_H
#define CIPHERDEX_CPOPPLERTEXT_H

// A C interface to poppler-cpp's reading-order page text (what `pdftotext` prints), for Swift,
// which cannot import poppler-cpp's C++ headers. No C++ exception crosses it.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What `cdx_poppler_page_texts` returns.
typedef enum {
    /// The texts were returned.
    CDX_POPPLER_TEXT_OK = 0,
    /// The document is encrypted and the password is missing or wrong.
    CDX_POPPLER_TEXT_LOCKED = 1,
    /// Poppler could not open the document.
    CDX_POPPLER_TEXT_DAMAGED = 2,
    /// Out of memory, an exception, an argument out of range (length over INT_MAX, no outputs), or
    /// poppler-cpp could not be loaded (CPopplerRuntime: nothing links it).
    CDX_POPPLER_TEXT_FAILED = 3,
} cdx_poppler_text_status;

/// The UTF-8 text of every page of the PDF in `data` (`length` bytes, not copied, only read
/// during the call), in reading order with physical layout off: the text `pdftotext` prints.
/// `password` (nullable: none) is tried as the owner and the user password.
/// On CDX_POPPLER_TEXT_OK, `*texts` holds `*count` NUL-terminated strings (a page poppler cannot
/// create gives ""), to be released with `cdx_poppler_free_page_texts`; otherwise `*texts` is
/// NULL and `*count` 0.
int cdx_poppler_page_texts(const unsigned char *data, size_t length, const char *password, char ***texts,
                           int *count);

/// Frees what `cdx_poppler_page_texts` returned (NULL is ignored).
void cdx_poppler_free_page_texts(char **texts, int count);

#ifdef __cplusplus
}
#endif

#endif
