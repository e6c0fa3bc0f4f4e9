// Measuring an image from its dictionary (ImageMeasure.h).

#include "ImageMeasure.h"

#include "PopplerCore.h"

#include <sys/resource.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>

namespace cdx_core {

namespace {

/// `a * b`, saturated at LLONG_MAX (both non-negative).
long long multiply(long long a, long long b) {
    long long product = 0;
    return __builtin_mul_overflow(a, b, &product) ? LLONG_MAX : product;
}

/// `a + b`, saturated at LLONG_MAX (both non-negative).
long long add(long long a, long long b) {
    long long sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? LLONG_MAX : sum;
}

/// The standard name of a filter (full or abbreviated), "other" for any other name.
const char *standard_filter(const char *name) {
    static const char *const names[][2] = {
        {"DCTDecode", "DCT"},          {"FlateDecode", "Fl"},       {"JPXDecode", nullptr},
        {"JBIG2Decode", nullptr},      {"CCITTFaxDecode", "CCF"},   {"LZWDecode", "LZW"},
        {"RunLengthDecode", "RL"},     {"ASCIIHexDecode", "AHx"},   {"ASCII85Decode", "A85"},
        {"Crypt", nullptr},
    };
    for (const auto &entry : names) {
        if (std::strcmp(name, entry[0]) == 0 || (entry[1] != nullptr && std::strcmp(name, entry[1]) == 0)) {
            return entry[0];
        }
    }
    return "other";
}

/// The image's decoding filter: the last of /Filter (an array applies them in order).
const char *filter_of(Dict *dict) {
    const object_result filter = lookup(dict, "Filter", "F");
    if (filter.is(objName)) {
        return standard_filter(filter.view().cString);
    }
    if (filter.is(objArray) && filter.view().array->getLength() > 0) {
        Array *array = filter.view().array;
        const object_result last = element(array, array->getLength() - 1);
        return last.is(objName) ? standard_filter(last.view().cString) : "other";
    }
    return "none";
}

/// The components of a device colour space's name (0: not one).
long long device_components(const char *name) {
    if (std::strcmp(name, "DeviceGray") == 0 || std::strcmp(name, "G") == 0) return 1;
    if (std::strcmp(name, "DeviceRGB") == 0 || std::strcmp(name, "RGB") == 0) return 3;
    if (std::strcmp(name, "DeviceCMYK") == 0 || std::strcmp(name, "CMYK") == 0) return 4;
    return 0;
}

/// The components of an image XObject's colour space `space` (as `GfxColorSpace::parse` reads
/// it): 0 when poppler cannot use it (no colour space, a name that is not a device's), a lower
/// bound of 1 for a family whose count is not read here.
long long colour_components(const object_result &space) {
    if (space.is(objName)) {
        // A name (not a resource's: only an inline image's may be) is a device colour space, or
        // /Pattern (not an image's, but not refused here).
        return space.is_name("Pattern") ? 1 : device_components(space.view().cString);
    }
    if (!space.is(objArray) || space.view().array->getLength() < 1) {
        return 0;
    }
    Array *array = space.view().array;
    const object_result family = element(array, 0);
    if (!family.is(objName)) {
        return 0;
    }
    const char *name = family.view().cString;
    if (const long long count = device_components(name)) return count;
    if (std::strcmp(name, "CalRGB") == 0 || std::strcmp(name, "Lab") == 0) return 3;
    if (std::strcmp(name, "ICCBased") == 0 && array->getLength() > 1) {
        const object_result profile = element(array, 1);
        Dict *dict = profile.stream() != nullptr ? profile.dict() : nullptr;
        const long long count = dict != nullptr ? lookup(dict, "N").integer(0) : 0;
        return count == 1 || count == 3 || count == 4 ? count : 1;
    }
    if (std::strcmp(name, "DeviceN") == 0 && array->getLength() > 1) {
        const object_result names = element(array, 1);
        // poppler's gfxColorMaxComps: more is a colour space it refuses.
        const long long count = names.is(objArray) ? names.view().array->getLength() : 1;
        return count <= 32 ? (count > 0 ? count : 1) : 0;
    }
    // CalGray, Indexed, Separation: one; anything else: at least one.
    return 1;
}

/// Adds what cairo allocates to draw the image (and a JPEG 2000 decoder beside it).
void cost(image_measure &measure) {
    const long long width = measure.width;
    const long long height = measure.height;
    if (measure.mask) {
        // CAIRO_FORMAT_A1, rows padded to 32 bits.
        measure.needed_bytes = multiply((width + 31) / 32 * 4, height);
        return;
    }
    // CAIRO_FORMAT_RGB24, plus an A8 surface for a soft or stencil mask.
    long long bytes = multiply(multiply(width, height), 4);
    bytes = add(bytes, multiply(measure.mask_width, measure.mask_height));
    // openjpeg holds the whole image, a 32-bit integer a sample.
    if (std::strcmp(measure.filter, "JPXDecode") == 0) {
        bytes = add(bytes, multiply(multiply(multiply(width, height), 4), measure.components));
    }
    measure.needed_bytes = bytes;
}

}  // namespace

image_measure measure_image(Dict *dict) {
    image_measure measure;
    measure.filter = filter_of(dict);
    measure.width = lookup(dict, "Width", "W").integer(-1);
    measure.height = lookup(dict, "Height", "H").integer(-1);
    const object_result mask = lookup(dict, "ImageMask", "IM");
    measure.mask = mask.is(objBool) && mask.view().booln;
    const bool jpx = std::strcmp(measure.filter, "JPXDecode") == 0;
    // A JPEG 2000 stream gives its own depth (8) and colour space.
    const long long bits = lookup(dict, "BitsPerComponent", "BPC").integer(-1);
    measure.bits = jpx ? 8 : bits >= 1 ? bits : measure.mask ? 1 : -1;
    // GfxImageColorMap refuses more than 30 bits; an /ImageMask that is not a boolean is refused.
    if (measure.width < 1 || measure.height < 1 || measure.bits < 1 || measure.bits > 30 ||
        (!mask.is(objBool) && !mask.is(objNull))) {
        measure.bad_parameters = true;
        return measure;
    }
    if (measure.mask) {
        measure.components = 1;
        measure.bad_parameters = measure.bits != 1;
    } else {
        const object_result space = lookup(dict, "ColorSpace", "CS");
        const long long components = space.is(objNull) ? 0 : colour_components(space);
        measure.bad_parameters = components == 0 && !(jpx && space.is(objNull));
        measure.components = components > 0 ? components : 1;
        for (const char *key : {"SMask", "Mask"}) {
            const object_result other = lookup(dict, key);
            Dict *other_dict = other.stream() != nullptr ? other.dict() : nullptr;
            if (other_dict != nullptr && measure.mask_width == 0) {
                measure.mask_width = lookup(other_dict, "Width", "W").integer(0);
                measure.mask_height = lookup(other_dict, "Height", "H").integer(0);
                if (measure.mask_width < 0 || measure.mask_height < 0) measure.mask_width = measure.mask_height = 0;
            }
        }
    }
    cost(measure);
    return measure;
}

image_measure measure_inline(const inline_image &image) {
    image_measure measure;
    measure.filter = image.filter.empty() ? "none" : standard_filter(image.filter.c_str());
    measure.width = image.width;
    measure.height = image.height;
    measure.mask = image.mask;
    measure.bits = image.mask ? 1 : image.bits;
    measure.components = image.components > 0 ? image.components : 1;
    measure.bad_parameters = measure.width < 1 || measure.height < 1 || measure.bits < 1 || measure.bits > 30 ||
                             (image.mask && image.bits > 1);
    if (!measure.bad_parameters) cost(measure);
    return measure;
}

bool too_large(const image_measure &measure, long long available) {
    return measure.width > cairo_maximum_side || measure.height > cairo_maximum_side ||
           measure.mask_width > cairo_maximum_side || measure.mask_height > cairo_maximum_side ||
           measure.needed_bytes > available;
}

long long row_bytes(const image_measure &measure) {
    const long long bits = multiply(multiply(measure.width, measure.components), measure.bits);
    const long long bytes = bits == LLONG_MAX ? LLONG_MAX : (bits + 7) / 8;
    return bytes > 0 ? bytes : 1;
}

long long address_space_left(long long reserved) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
        limit.rlim_cur > static_cast<rlim_t>(LLONG_MAX)) {
        return LLONG_MAX;
    }
    long long mapped = 0;
    // statm's first field: the pages mapped (what RLIMIT_AS counts).
    if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
        long long pages = 0;
        const long page_size = sysconf(_SC_PAGESIZE);
        if (std::fscanf(statm, "%lld", &pages) == 1 && pages > 0 && page_size > 0) {
            mapped = multiply(pages, page_size);
        }
        std::fclose(statm);
    }
    const long long left = static_cast<long long>(limit.rlim_cur) - mapped - reserved;
    return left > 0 ? left : 0;
}

}  // namespace cdx_core
