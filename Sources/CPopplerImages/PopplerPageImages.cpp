// The check of a page's images before OCR renders it (CPopplerImages.h).
//
// Rendering cannot tell a page whose images are white from one whose images poppler could not
// draw: a JPEG whose header is damaged decodes to nothing, which `ImageStream` pads with 0xFF
// (white), and libjpeg reports it to no one; an image cairo cannot allocate (more memory than the
// helper's limit, or wider than 32767 pixels) is skipped without an error. So before rendering,
// every image the page paints is found in its content streams (`ContentScanner`), measured from
// its dictionary, and decoded on its own, once per image object, streaming (a page of a thousand
// tiles of one image decodes it once). Poppler's error callback counts the errors reported while
// an image is read, on this thread only.

#include "CPopplerImages.h"

#include "ContentScanner.h"
#include "ImageMeasure.h"
#include "PopplerCore.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cdx_core {

namespace {

/// poppler-glib 22.12's private `struct _PopplerPage` (glib/poppler-private.h): a `GObject`
/// (class pointer, reference count, data list), the document, then the core `Page`.
struct glib_page_layout {
    void *g_class;
    unsigned int ref_count;
    void *qdata;
    void *document;
    Page *page;
    int index;
};

/// The errors counted on this thread while an image is read (nullptr: none is being read).
thread_local int *reported_errors = nullptr;

/// Poppler's error callback: counts the errors (not warnings) of the image this thread reads;
/// says nothing otherwise (poppler-glib's own callback only logs at the INFO level).
void count_error(ErrorCategory category, Goffset, const char *) {
    if (reported_errors != nullptr && category != errSyntaxWarning) {
        ++*reported_errors;
    }
}

/// A place where the page's content refers to XObjects: its resources, the place whose
/// resources poppler looks in next for a name these lack (`GfxResources::next`), and the names
/// already looked up here (a name painted again is not fetched again).
struct context {
    Dict *resources = nullptr;
    context *parent = nullptr;
    int depth = 0;
    std::unique_ptr<object_result> xobjects;
    std::unordered_set<std::string> seen;

    /// The `/XObject` dictionary of these resources, or nullptr.
    Dict *xobject_dictionary() {
        if (resources == nullptr) return nullptr;
        if (!xobjects) xobjects = std::make_unique<object_result>(lookup(resources, "XObject"));
        return xobjects->is(objDict) ? xobjects->dict() : nullptr;
    }
};

/// An image object to decode: its reference (fetched again then, so that a page of many images
/// does not hold them all), or the object itself when it is direct.
struct pending_image {
    Ref ref;
    std::unique_ptr<object_result> object;
    image_measure measure;
};

/// Finds, measures and decodes the images of one page.
class page_checker final : public content_handler {
public:
    page_checker(Page *page, long long available, cdx_page_images_result *result)
        : page(page), available(available), result(result) {}

    /// Runs the check; a `cdx_page_images_status`.
    int run() {
        xref = page->getDoc() != nullptr ? page->getDoc()->getXRef() : nullptr;
        if (xref == nullptr) {
            return CDX_PAGE_IMAGES_OK;
        }
        object_result page_object = api().xref_fetch(xref, page->getRef(), 0);
        Dict *page_dict = page_object.dict();
        if (page_dict == nullptr) {
            return CDX_PAGE_IMAGES_OK;
        }
        // The content: one stream, or an array of streams.
        std::vector<object_result> parts;
        object_result contents = lookup(page_dict, "Contents");
        if (contents.is(objArray)) {
            Array *array = contents.view().array;
            // Each part stays open while the content is read: past this many the check is
            // skipped (the page renders as it would without it), never grown without bound.
            if (array->getLength() > maximum_parts) {
                std::snprintf(result->message, sizeof result->message, "more than %d content streams", maximum_parts);
                return CDX_PAGE_IMAGES_UNAVAILABLE;
            }
            for (int index = 0; index < array->getLength(); ++index) {
                parts.push_back(element(array, index));
            }
        }
        std::vector<Stream *> streams;
        if (contents.stream() != nullptr) {
            streams.push_back(contents.stream());
        }
        for (const object_result &part : parts) {
            if (part.stream() != nullptr) streams.push_back(part.stream());
        }
        page_context.resources = api().page_resource_dict(page);
        current = &page_context;
        scan(streams);
        // Forms painted (each form and resources once), breadth first.
        for (size_t next = 0; status == CDX_PAGE_IMAGES_OK && next < forms.size(); ++next) {
            current = forms[next].second.get();
            scan({forms[next].first->stream()});
        }
        if (too_many_forms) {
            std::snprintf(result->message, sizeof result->message, "more than %d forms", maximum_forms);
            return CDX_PAGE_IMAGES_UNAVAILABLE;
        }
        if (status != CDX_PAGE_IMAGES_OK) {
            return status;
        }
        if (bad_image.has_value()) {
            fill(*bad_image);
            result->problem = CDX_IMAGE_PROBLEM_BAD_PARAMETERS;
            return CDX_PAGE_IMAGES_UNDECODABLE;
        }
        for (pending_image &image : images) {
            if (!decode(image)) {
                return CDX_PAGE_IMAGES_UNDECODABLE;
            }
        }
        return CDX_PAGE_IMAGES_OK;
    }

    bool paint(const std::string &name) override {
        context &place = *current;
        if (!place.seen.insert(name).second) {
            return true;
        }
        // As poppler's `GfxResources::lookupXObject`: the first resources, from the innermost
        // outwards, whose `/XObject` lists the name (a form's own resources that lack it fall
        // back on those of the content painting the form).
        Ref ref = Ref::INVALID();
        std::unique_ptr<object_result> object;
        for (context *where = &place; where != nullptr && !object; where = where->parent) {
            Dict *xobjects = where->xobject_dictionary();
            if (xobjects == nullptr) continue;
            ref = Ref::INVALID();
            auto found = std::make_unique<object_result>(lookup(xobjects, name.c_str(), &ref));
            if (!found->is(objNull)) object = std::move(found);
        }
        if (!object) {
            return true;
        }
        Dict *dict = object->stream() != nullptr ? object->dict() : nullptr;
        if (dict == nullptr) {
            return true;
        }
        const object_result subtype = lookup(dict, "Subtype");
        if (subtype.is_name("Form")) {
            add_form(std::move(object), ref, dict, place);
            return true;
        }
        if (!subtype.is_name("Image")) {
            return true;
        }
        if (ref != Ref::INVALID() && !seen_images.insert({ref.num, ref.gen}).second) {
            return true;
        }
        image_measure measure = measure_image(dict);
        measure.object_number = ref != Ref::INVALID() ? ref.num : 0;
        return accept(ref, ref != Ref::INVALID() ? nullptr : std::move(object), measure);
    }

    bool paint_inline(const inline_image &image) override {
        image_measure measure = measure_inline(image);
        measure.is_inline = true;
        return accept(Ref::INVALID(), nullptr, measure);
    }

private:
    /// Reads `streams` as content in the current context.
    void scan(std::vector<Stream *> streams) {
        byte_source source(std::move(streams));
        scan_content(source, *this);
    }

    /// Queues a painted form once per object and resources (a form without its own resources
    /// uses those of the content that paints it; one with its own falls back on those for a
    /// name they lack), up to poppler's nesting depth. A form with its own resources painted from
    /// several places is read once, falling back on the first place's resources.
    void add_form(std::unique_ptr<object_result> object, Ref ref, Dict *dict, context &parent) {
        if (parent.depth >= 100) {
            return;
        }
        auto place = std::make_unique<context>();
        place->depth = parent.depth + 1;
        // Kept alive with the form's object, which owns it.
        object_result own = lookup(dict, "Resources");
        auto resources = std::make_unique<object_result>(std::move(own));
        place->resources = resources->is(objDict) ? resources->dict() : parent.resources;
        // Poppler pushes a form's own resources above the painter's, and nothing otherwise.
        place->parent = resources->is(objDict) ? &parent : parent.parent;
        const void *key_resources = resources->is(objDict) ? nullptr : parent.resources;
        if (ref != Ref::INVALID() && !seen_forms.insert({{ref.num, ref.gen}, key_resources}).second) {
            return;
        }
        // Each queued form holds its objects (and a stream's buffer) until the check ends:
        // past this many the check is skipped rather than grown without bound.
        if (forms.size() >= static_cast<size_t>(maximum_forms)) {
            too_many_forms = true;
            status = CDX_PAGE_IMAGES_UNAVAILABLE;
            return;
        }
        kept.push_back(std::move(resources));
        forms.emplace_back(std::move(object), std::move(place));
    }

    /// Records a measured image: too large stops the check; bad parameters are kept (the first)
    /// for after the scan; the rest are queued for decoding (an inline image is not decoded).
    bool accept(Ref ref, std::unique_ptr<object_result> object, const image_measure &measure) {
        if (measure.bad_parameters) {
            if (!bad_image.has_value()) bad_image = measure;
            return true;
        }
        if (too_large(measure, available)) {
            fill(measure);
            if (measure.mask_width > cairo_maximum_side || measure.mask_height > cairo_maximum_side) {
                result->width = measure.mask_width;
                result->height = measure.mask_height;
            }
            status = CDX_PAGE_IMAGES_TOO_LARGE;
            result->needed_bytes = measure.needed_bytes;
            result->available_bytes = available;
            return false;
        }
        if (ref != Ref::INVALID() || object) {
            images.push_back({ref, std::move(object), measure});
        }
        return true;
    }

    /// Decodes an image in full; false (with `result` filled) when its data ends early.
    bool decode(pending_image &image) {
        if (!image.object) {
            image.object = std::make_unique<object_result>(api().xref_fetch(xref, image.ref, 0));
        }
        Stream *stream = image.object->stream();
        const image_measure &measure = image.measure;
        if (stream == nullptr) {
            return true;
        }
        const long long row = row_bytes(measure);
        int errors = 0;
        // poppler tries every JPX stream as a JP2 file first and reports an error for a raw
        // codestream it then decodes fine: only a JPX image's missing rows count.
        const bool counts_errors = measure.filter == nullptr || std::strcmp(measure.filter, "JPXDecode") != 0;
        reported_errors = counts_errors ? &errors : nullptr;
        std::vector<unsigned char> buffer(1 << 16);
        long long rows_bytes = 0;
        // Sides are at most 32767 here (`too_large`), components at most 32, bits at most 30.
        const long long wanted = row * measure.height;
        stream->reset();
        while (rows_bytes < wanted) {
            const long long left = wanted - rows_bytes;
            const int chunk = static_cast<int>(left < static_cast<long long>(buffer.size()) ? left : buffer.size());
            const int read = stream->doGetChars(chunk, buffer.data());
            if (read <= 0) break;
            rows_bytes += read;
        }
        stream->close();
        reported_errors = nullptr;
        image.object.reset();
        const long long rows = rows_bytes / row;
        if (rows >= measure.height && errors == 0) {
            return true;
        }
        fill(measure);
        result->problem = rows < measure.height ? CDX_IMAGE_PROBLEM_DATA_ENDS : CDX_IMAGE_PROBLEM_DECODE_ERRORS;
        result->decoded_rows = rows;
        result->reported_errors = errors;
        return false;
    }

    /// Describes `measure` in `result`.
    void fill(const image_measure &measure) {
        result->object_number = measure.object_number;
        result->width = measure.width;
        result->height = measure.height;
        result->filter = measure.filter;
        result->is_inline = measure.is_inline ? 1 : 0;
    }

    Page *page;
    XRef *xref = nullptr;
    long long available;
    cdx_page_images_result *result;
    int status = CDX_PAGE_IMAGES_OK;
    context page_context;
    context *current = nullptr;
    std::vector<std::pair<std::unique_ptr<object_result>, std::unique_ptr<context>>> forms;
    std::vector<std::unique_ptr<object_result>> kept;
    std::set<std::pair<int, int>> seen_images;
    std::set<std::pair<std::pair<int, int>, const void *>> seen_forms;
    std::vector<pending_image> images;
    std::optional<image_measure> bad_image;
    bool too_many_forms = false;
    /// The most content streams and queued forms a check reads (see `run`, `add_form`).
    static constexpr int maximum_parts = 4096;
    static constexpr int maximum_forms = 4096;
};

/// Serialises installing the error callback (poppler keeps one, process-wide).
std::mutex callback_mutex;

}  // namespace

int check(Page *page, long long available, cdx_page_images_result *result) {
    {
        // Set for each check: poppler-glib and poppler-cpp set their own when their first
        // document opens.
        std::lock_guard<std::mutex> lock(callback_mutex);
        api().set_error_callback(count_error);
    }
    page_checker checker(page, available, result);
    return checker.run();
}

}  // namespace cdx_core

extern "C" int cdx_poppler_check_page_images(void *page, int page_index, long long reserved_bytes,
                                             cdx_page_images_result *result) {
    if (result == nullptr) {
        return CDX_PAGE_IMAGES_FAILED;
    }
    std::memset(result, 0, sizeof *result);
    result->filter = "none";
    if (page == nullptr || page_index < 0 || reserved_bytes < 0) {
        std::snprintf(result->message, sizeof result->message, "invalid arguments");
        return CDX_PAGE_IMAGES_FAILED;
    }
    // The private layouts read below are poppler 22.12's: built against another release's
    // headers, the check is skipped (whatever poppler runs).
    constexpr std::string_view built_for(POPPLER_VERSION);
    if constexpr (built_for.substr(0, 6) != std::string_view("22.12.")) {
        std::snprintf(result->message, sizeof result->message, "built against poppler %s, not 22.12", POPPLER_VERSION);
        return CDX_PAGE_IMAGES_UNAVAILABLE;
    }
    const char *error = nullptr;
    if (cdx_core::load(&error) == nullptr) {
        std::snprintf(result->message, sizeof result->message, "%s", error != nullptr ? error : "unknown error");
        return CDX_PAGE_IMAGES_UNAVAILABLE;
    }
    Page *core = static_cast<cdx_core::glib_page_layout *>(page)->page;
    if (core == nullptr || core->getNum() != page_index + 1) {
        std::snprintf(result->message, sizeof result->message,
                      "poppler-glib's page object does not hold page %d as poppler 22.12's does", page_index + 1);
        return CDX_PAGE_IMAGES_UNAVAILABLE;
    }
    try {
        return cdx_core::check(core, cdx_core::address_space_left(reserved_bytes), result);
    } catch (const std::bad_alloc &) {
        cdx_core::reported_errors = nullptr;
        std::snprintf(result->message, sizeof result->message, "out of memory");
        return CDX_PAGE_IMAGES_FAILED;
    } catch (...) {
        cdx_core::reported_errors = nullptr;
        std::snprintf(result->message, sizeof result->message, "an exception");
        return CDX_PAGE_IMAGES_FAILED;
    }
}
