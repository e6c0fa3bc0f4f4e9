#ifndef CIPHERDEX_CPOPPLERIMAGES_H
#define CIPHERDEX_CPOPPLERIMAGES_H

// A C interface to the check OCR makes of a page's images before rendering it (poppler core, C++):
// every image the page draws is found and measured from its dictionary, and decoded once. No C++
// exception crosses it; nothing of poppler core is linked (its functions are resolved with dlsym
// through poppler-glib, which CPopplerRuntime loaded).

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What `cdx_poppler_check_page_images` found.
typedef enum {
    /// Every image the page draws has a valid size, fits, and decodes in full.
    CDX_PAGE_IMAGES_OK = 0,
    /// An image cannot be decoded (`problem` says how): drawing would leave its area blank.
    CDX_PAGE_IMAGES_UNDECODABLE = 1,
    /// An image is too large to draw: wider or taller than cairo's 32767 pixels, or needing more
    /// memory (`needed_bytes`) than the helper's address-space limit leaves (`available_bytes`).
    CDX_PAGE_IMAGES_TOO_LARGE = 2,
    /// poppler core could not be used (`message`): a function is missing, or the loaded poppler
    /// is not the version these declarations were compiled for.
    CDX_PAGE_IMAGES_UNAVAILABLE = 3,
    /// Out of memory, an exception, or an argument out of range.
    CDX_PAGE_IMAGES_FAILED = 4,
} cdx_page_images_status;

/// How an image cannot be decoded (`CDX_PAGE_IMAGES_UNDECODABLE`).
typedef enum {
    /// Its dictionary gives no usable size, bit depth or colour space: poppler skips it.
    CDX_IMAGE_PROBLEM_BAD_PARAMETERS = 1,
    /// Its decoder gave fewer rows than its height (`decoded_rows`): the rest would be blank.
    CDX_IMAGE_PROBLEM_DATA_ENDS = 2,
    /// Its decoder gave every row but reported errors (not warnings) while decoding it: what it
    /// gave is not the image (a JBIG2 or CCITT decoder fills what it could not decode with white).
    CDX_IMAGE_PROBLEM_DECODE_ERRORS = 3,
} cdx_image_problem;

/// The image a check stopped at, and why.
typedef struct {
    /// Its object number; 0 for an inline image or a direct object.
    int object_number;
    /// Its width and height in pixels, from its dictionary (-1 when it has none); TOO_LARGE: those
    /// of its soft or stencil mask when the mask is the surface over cairo's side.
    long long width;
    long long height;
    /// Its filter's standard name ("DCTDecode", "FlateDecode"…), "none", or "other" for a name that
    /// is not a standard filter's (static storage).
    const char *filter;
    /// Whether it is an inline image (BI … ID … EI in the content).
    int is_inline;
    /// UNDECODABLE: a `cdx_image_problem`.
    int problem;
    /// UNDECODABLE: the rows it decoded to, of `height`.
    long long decoded_rows;
    /// UNDECODABLE: how many errors poppler reported while reading it.
    int reported_errors;
    /// TOO_LARGE: the bytes cairo (and a JPEG 2000 decoder) would allocate to draw it.
    long long needed_bytes;
    /// TOO_LARGE: the address space the helper's limit leaves (after `reserved_bytes`).
    long long available_bytes;
    /// UNAVAILABLE, FAILED: why (NUL-terminated).
    char message[256];
} cdx_page_images_result;

/// Checks the images page `page_index` (zero-based) of a poppler-glib document draws: `page` is
/// its `PopplerPage *`, whose poppler core `Page` is used (the check reads poppler-glib 22.12's
/// private layout of it, and refuses any other poppler version). Images are those its content
/// streams paint with `Do` (through Form XObjects too) and inline images; each image object is
/// looked at once. First every one is measured (so an image too large fails before any is
/// decoded), then every image object is decoded once, in full, streaming. `reserved_bytes` is
/// address space the caller still needs beside one image (the page's render); an image needs
/// `width * height * 4` bytes (a cairo RGB24 surface; an image mask 1 bit a pixel), plus its
/// smask's `width * height`, plus 4 bytes a sample for a JPEG 2000 one. Poppler's error callback
/// is set while this runs (process-wide; the errors of other threads are ignored). Fills `result`
/// (not NULL) unless it returns OK.
int cdx_poppler_check_page_images(void *page, int page_index, long long reserved_bytes,
                                  cdx_page_images_result *result);

#ifdef __cplusplus
}
#endif

#endif
