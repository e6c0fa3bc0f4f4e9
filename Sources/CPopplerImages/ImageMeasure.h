// An image's size, sample layout and drawing cost, from its dictionary alone (no decoding), read
// as poppler's `Gfx::doImage` reads it: what it would skip as "Bad image parameters", how many
// bytes a row of its decoded data holds, and what cairo allocates to draw it.

#ifndef CIPHERDEX_IMAGE_MEASURE_H
#define CIPHERDEX_IMAGE_MEASURE_H

#include "ContentScanner.h"

#include <poppler/Object.h>  // before Dict.h (PopplerCore.h)

#include <poppler/Dict.h>

namespace cdx_core {

/// cairo's largest image surface, a side (MAX_IMAGE_SIZE in cairo-image-surface.c).
constexpr long long cairo_maximum_side = 32767;

/// What an image's dictionary says.
struct image_measure {
    /// The object number (0: inline or direct).
    int object_number = 0;
    /// Whether it is an inline image.
    bool is_inline = false;
    /// Its size (-1 when not given).
    long long width = -1;
    long long height = -1;
    /// Bits a sample, components a pixel (1 for an image mask, and a lower bound when its colour
    /// space's count is not known here).
    long long bits = 0;
    long long components = 1;
    /// An image mask (/ImageMask true).
    bool mask = false;
    /// The filter's standard name, "none" or "other" (static storage).
    const char *filter = "none";
    /// Poppler would not draw it: no size, no bit depth, no colour space it can use.
    bool bad_parameters = false;
    /// Its soft mask's or stencil mask's size, when it has one (0 otherwise).
    long long mask_width = 0;
    long long mask_height = 0;
    /// The bytes drawing it allocates (saturated at LLONG_MAX).
    long long needed_bytes = 0;
};

/// Measures the image XObject whose stream dictionary is `dict` (its colour space cannot be a
/// resource's name: poppler reads one only for an inline image).
image_measure measure_image(Dict *dict);

/// Measures an inline image.
image_measure measure_inline(const inline_image &image);

/// Whether cairo cannot draw it: a side over `cairo_maximum_side`, or more than `available`
/// bytes needed.
bool too_large(const image_measure &measure, long long available);

/// The bytes of one decoded row (at least 1).
long long row_bytes(const image_measure &measure);

/// The address space this process may still map (RLIMIT_AS less what is mapped, from
/// /proc/self/statm), less `reserved`; LLONG_MAX without a limit, 0 when it cannot be told.
long long address_space_left(long long reserved);

}  // namespace cdx_core

#endif
