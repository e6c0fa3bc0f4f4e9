// poppler-cpp's page text behind the C interface of CPopplerText.h.
//
// Nothing here links libpoppler-cpp (a process that never extracts a PDF must not map it,
// CPopplerRuntime.h): its headers give the classes' layout and inline parts, and the out-of-line
// members are called through the pointers CPopplerRuntime resolved with dlsym, each cast to a free
// function taking `this` first (the Itanium C++ ABI passes `this` like a first argument, after
// the hidden pointer for a returned class). Objects whose destructor is out of line are held in
// shells of the same layout whose destructor calls that pointer.

#include "CPopplerText.h"

#include "CPopplerRuntime.h"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <poppler/Page.h>
#include <poppler/TextOutputDev.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

struct cpp_api;
const cpp_api &api();

/// A `poppler::ustring` returned by value: same layout, destroyed through `ustring::~ustring`.
struct ustring_result {
    alignas(poppler::ustring) unsigned char storage[sizeof(poppler::ustring)];
    ustring_result(const ustring_result &) = delete;
    ustring_result &operator=(const ustring_result &) = delete;
    ~ustring_result();
    /// The string (its inline `std::basic_string` members only).
    const poppler::ustring &value() const { return *reinterpret_cast<const poppler::ustring *>(storage); }
};

/// A `poppler::text_box` in the vector `page::text_list()` returns: same layout (a pointer to
/// its data), destroyed through `text_box::~text_box`.
struct text_box_result {
    void *data;
    text_box_result(const text_box_result &) = delete;
    text_box_result &operator=(const text_box_result &) = delete;
    ~text_box_result();
    /// `text_box::bbox()`.
    poppler::rectf bbox() const;
};
static_assert(sizeof(text_box_result) == sizeof(poppler::text_box), "poppler::text_box's layout changed");
static_assert(alignof(text_box_result) == alignof(poppler::text_box), "poppler::text_box's layout changed");

/// The poppler-cpp members, typed.
struct cpp_api {
    poppler::document *(*load_from_raw_data)(const char *, int, const std::string &, const std::string &);
    void (*document_destroy)(poppler::document *);
    bool (*is_locked)(const poppler::document *);
    int (*pages)(const poppler::document *);
    poppler::page *(*create_page)(const poppler::document *, int);
    void (*page_destroy)(poppler::page *);
    ustring_result (*text)(const poppler::page *, const poppler::rectf &, poppler::page::text_layout_enum);
    std::vector<text_box_result> (*text_list)(const poppler::page *);
    void (*text_box_destroy)(text_box_result *);
    poppler::rectf (*bbox)(const text_box_result *);
    void (*ustring_destroy)(ustring_result *);
    void (*text_output_dev_create)(TextOutputDev *, TextOutputFunc, void *, bool, double, bool, bool);
    void (*page_display)(Page *, OutputDev *, double, double, int, bool, bool, bool, bool (*)(void *), void *,
                         bool (*)(Annot *, void *), void *, bool);
};

// The core members' signatures as the headers declare them: a change fails the build here, before
// the mangled names in CPopplerRuntime.h go stale.
static_assert(sizeof(static_cast<void (Page::*)(OutputDev *, double, double, int, bool, bool, bool, bool (*)(void *),
                                                void *, bool (*)(Annot *, void *), void *, bool)>(&Page::display)) > 0,
              "Page::display changed");
static_assert(std::is_constructible<TextOutputDev, TextOutputFunc, void *, bool, double, bool, bool>::value,
              "TextOutputDev's stream constructor changed");

/// Casts a resolved `void *` to the function pointer type of `target`.
template <typename Function> void assign(Function &target, void *symbol) {
    static_assert(sizeof(Function) == sizeof(void *), "not a function pointer");
    std::memcpy(&target, &symbol, sizeof symbol);
}

/// The typed table (call only after `cdx_poppler_load` succeeded).
const cpp_api &api() {
    static const cpp_api table = [] {
        const cdx_poppler_api *loaded = cdx_poppler_load(nullptr);
        cpp_api typed{};
        assign(typed.load_from_raw_data, loaded->cpp_document_load_from_raw_data);
        assign(typed.document_destroy, loaded->cpp_document_destroy);
        assign(typed.is_locked, loaded->cpp_document_is_locked);
        assign(typed.pages, loaded->cpp_document_pages);
        assign(typed.create_page, loaded->cpp_document_create_page);
        assign(typed.page_destroy, loaded->cpp_page_destroy);
        assign(typed.text, loaded->cpp_page_text);
        assign(typed.text_list, loaded->cpp_page_text_list);
        assign(typed.text_box_destroy, loaded->cpp_text_box_destroy);
        assign(typed.bbox, loaded->cpp_text_box_bbox);
        assign(typed.ustring_destroy, loaded->cpp_ustring_destroy);
        assign(typed.text_output_dev_create, loaded->cpp_core_text_output_dev_create);
        assign(typed.page_display, loaded->cpp_core_page_display);
        return typed;
    }();
    return table;
}

ustring_result::~ustring_result() { api().ustring_destroy(this); }
text_box_result::~text_box_result() { api().text_box_destroy(this); }
poppler::rectf text_box_result::bbox() const { return api().bbox(this); }

/// Deletes what poppler-cpp allocated with `new`: its destructor, then the memory.
struct document_deleter {
    void operator()(poppler::document *document) const {
        api().document_destroy(document);
        ::operator delete(static_cast<void *>(document));
    }
};
struct page_deleter {
    void operator()(poppler::page *page) const {
        api().page_destroy(page);
        ::operator delete(static_cast<void *>(page));
    }
};

/// `page.text(rect, layout)`.
ustring_result page_text(const poppler::page &page, const poppler::rectf &rect) {
    return api().text(&page, rect, poppler::page::non_raw_non_physical_layout);
}

/// Appends the UTF-8 of `value` to `out`.
void append_utf8(std::string &out, unsigned value) {
    if (value < 0x80) {
        out.push_back(static_cast<char>(value));
    } else if (value < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (value >> 6)));
        out.push_back(static_cast<char>(0x80 | (value & 0x3F)));
    } else if (value < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (value >> 12)));
        out.push_back(static_cast<char>(0x80 | ((value >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (value & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (value >> 18)));
        out.push_back(static_cast<char>(0x80 | ((value >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((value >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (value & 0x3F)));
    }
}

/// The UTF-8 of poppler's UTF-16 page text, converted here rather than by `ustring::to_utf8()`,
/// which stops at the first U+0000: poppler maps some glyphs to U+0000 (pdfjs__issue19971.pdf
/// p.6, between Arabic letters), and everything after it on the page was lost. A U+0000 becomes a
/// space (the reader sees a gap; pdftotext's text separates words there too), a lone surrogate
/// U+FFFD.
std::string utf8_text(const poppler::ustring &text) {
    std::string out;
    out.reserve(text.size() + text.size() / 2);
    const size_t count = text.size();
    for (size_t index = 0; index < count; ++index) {
        unsigned unit = text[index];
        if (unit == 0) {
            out.push_back(' ');
        } else if (unit >= 0xD800 && unit <= 0xDBFF && index + 1 < count && text[index + 1] >= 0xDC00 &&
                   text[index + 1] <= 0xDFFF) {
            append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (text[index + 1] - 0xDC00));
            ++index;
        } else if (unit >= 0xD800 && unit <= 0xDFFF) {
            append_utf8(out, 0xFFFD);
        } else {
            append_utf8(out, unit);
        }
    }
    return out;
}

/// `page::text()` of the band `top`..`bottom` of the page (points from the top), without its
/// final form feed and line breaks; `complete` tells whether it was cut short (see `full_text`).
std::string band_text(const poppler::page &page, double left, double width, double top, double bottom,
                      bool &complete) {
    std::string text = utf8_text(page_text(page, poppler::rectf(left, top, width, bottom - top)).value());
    complete = text.empty() || text.back() == '\f';
    while (!text.empty() && (text.back() == '\f' || text.back() == '\n')) {
        text.pop_back();
    }
    return text;
}

/// The text of the band `top`..`bottom`, which `page::text()` cuts short: the largest band from
/// `top` that comes back whole (found by bisection over `cuts`, the gaps between lines, sorted),
/// the line after it that holds the U+0000 (cut short: what follows the U+0000 on that line is
/// lost), then the rest read the same way, at most `depth` more times. Large bands keep
/// poppler's layout (columns, line order) as in the whole page's text.
std::string banded_text(const poppler::page &page, const std::vector<double> &cuts, double left, double width,
                        double top, double bottom, int depth) {
    bool complete = false;
    std::string whole = band_text(page, left, width, top, bottom, complete);
    std::vector<double> inside;
    for (double cut : cuts) {
        if (cut > top && cut < bottom) {
            inside.push_back(cut);
        }
    }
    if (complete || depth == 0 || inside.empty()) {
        return whole;
    }
    // The first cut whose band from `top` is cut short (inside.size() when only the whole is).
    size_t low = 0, high = inside.size();
    while (low < high) {
        const size_t middle = (low + high) / 2;
        bool whole_band = false;
        band_text(page, left, width, top, inside[middle], whole_band);
        if (whole_band) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    const double lineTop = low == 0 ? top : inside[low - 1];
    const double lineBottom = low == inside.size() ? bottom : inside[low];
    std::string result;
    bool ignored = false;
    if (low > 0) {
        result = band_text(page, left, width, top, lineTop, ignored);
    }
    const std::string line = band_text(page, left, width, lineTop, lineBottom, ignored);
    if (!line.empty()) {
        result += result.empty() ? line : "\n" + line;
    }
    if (lineBottom < bottom) {
        const std::string rest = banded_text(page, cuts, left, width, lineBottom, bottom, depth - 1);
        if (!rest.empty()) {
            result += result.empty() ? rest : "\n" + rest;
        }
    }
    return result;
}

/// The page's reading-order text. poppler-cpp 22.12 builds `page::text()` with
/// `ustring::from_utf8(const char *)`, which stops at the first U+0000 (poppler maps some glyphs
/// to it: pdfjs__issue19971.pdf p.6, between Arabic letters): everything after it on the page was
/// lost. A finished text always ends with a form feed, so a page whose text does not is read again
/// in horizontal bands cut between its lines (`band_text`), each band's text being complete
/// except the one line with the U+0000.
std::string full_text(const poppler::page &page) {
    std::string text = utf8_text(page_text(page, poppler::rectf()).value());
    if (text.empty() || text.back() == '\f') {
        return text;
    }
    std::vector<poppler::rectf> words;
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    for (const text_box_result &word : api().text_list(&page)) {
        const poppler::rectf box = word.bbox();
        if (words.empty()) {
            minX = box.x(), maxX = box.x() + box.width(), minY = box.y(), maxY = box.y() + box.height();
        }
        minX = std::min(minX, box.x()), maxX = std::max(maxX, box.x() + box.width());
        minY = std::min(minY, box.y()), maxY = std::max(maxY, box.y() + box.height());
        words.push_back(box);
    }
    if (words.empty()) {
        return text;
    }
    std::sort(words.begin(), words.end(),
              [](const poppler::rectf &a, const poppler::rectf &b) { return a.y() < b.y(); });
    // Cuts between lines: halfway across each vertical gap no word box spans.
    std::vector<double> cuts;
    double reach = words.front().y() + words.front().height();
    for (const poppler::rectf &box : words) {
        if (box.y() > reach) {
            cuts.push_back((reach + box.y()) / 2);
        }
        reach = std::max(reach, box.y() + box.height());
    }
    std::string banded = banded_text(page, cuts, minX - 1, maxX - minX + 2, minY - 1, maxY + 1, 64);
    banded += "\n\f";
    return banded.size() > text.size() ? banded : text;
}

/// The first members of poppler-cpp 22.12's private `page_private` (cpp/poppler-page-private.h),
/// which a `poppler::page` points to: checked against what they must hold before use.
struct page_private_layout {
    void *doc;
    Page *page;
    int index;
};
static_assert(sizeof(poppler::page) == sizeof(void *), "poppler::page's layout changed");

/// Appends `bytes` (UTF-8 from poppler's encoder) to `out` as valid UTF-8: a U+0000 becomes a space
/// (as in `utf8_text`), a surrogate pair encoded as two three-byte sequences the character it
/// stands for, and anything else that is not UTF-8 (a lone surrogate, a stray byte) U+FFFD.
void append_checked_utf8(std::string &out, const unsigned char *bytes, size_t length) {
    size_t index = 0;
    while (index < length) {
        const unsigned lead = bytes[index];
        if (lead < 0x80) {
            out.push_back(lead == 0 ? ' ' : static_cast<char>(lead));
            ++index;
            continue;
        }
        size_t size = 0;
        unsigned value = 0, minimum = 0;
        if (lead >= 0xC2 && lead <= 0xDF) {
            size = 2, value = lead & 0x1F, minimum = 0x80;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            size = 3, value = lead & 0x0F, minimum = 0x800;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            size = 4, value = lead & 0x07, minimum = 0x10000;
        }
        bool valid = size > 0 && index + size <= length;
        for (size_t next = 1; valid && next < size; ++next) {
            valid = (bytes[index + next] & 0xC0) == 0x80;
            value = value << 6 | (bytes[index + next] & 0x3F);
        }
        valid = valid && value >= minimum && value <= 0x10FFFF;
        if (!valid) {
            append_utf8(out, 0xFFFD);
            ++index;
            continue;
        }
        if (value >= 0xD800 && value <= 0xDBFF && index + 6 <= length && bytes[index + 3] == 0xED &&
            (bytes[index + 4] & 0xF0) == 0xB0 && (bytes[index + 5] & 0xC0) == 0x80) {
            const unsigned low = 0xD000 | (bytes[index + 4] & 0x3F) << 6 | (bytes[index + 5] & 0x3F);
            append_utf8(out, 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00));
            index += 6;
            continue;
        }
        if (value >= 0xD800 && value <= 0xDFFF) {
            append_utf8(out, 0xFFFD);
        } else {
            out.append(reinterpret_cast<const char *>(bytes + index), size);
        }
        index += size;
    }
}

/// What `TextPage::dump` writes of a page in reading order, with the hyphens it drops put back.
/// It writes each line's text, then an end of line, except after a line whose last character is
/// a hyphen and which another line follows in its flow: that line's hyphen and end of line are
/// dropped, joining the two lines' words (`log-⏎likelihood` → `loglikelihood`, `com-⏎puter` →
/// `computer`). A line's text directly after another's is where that happened: the hyphen and the
/// line break are written back there, so the text holds what a reader sees (the tokenizer joins
/// the word across them: `TokenScanner`, revision 6).
struct line_writer {
    /// The page's text so far.
    std::string text;
    /// Whether the last call wrote a line's text, with no end of line after it yet.
    bool line_open = false;

    /// poppler's `TextOutputFunc`.
    static void write(void *stream, const char *bytes, int length) {
        line_writer &writer = *static_cast<line_writer *>(stream);
        if (length == 1 && (bytes[0] == '\n' || bytes[0] == '\f')) {
            writer.text.push_back(bytes[0]);
            writer.line_open = false;
            return;
        }
        if (writer.line_open) {
            writer.text += "-\n";
        }
        append_checked_utf8(writer.text, reinterpret_cast<const unsigned char *>(bytes),
                            length > 0 ? static_cast<size_t>(length) : 0);
        writer.line_open = true;
    }
};

/// Destroys a `TextOutputDev` built in raw memory, through its virtual destructor, and frees it.
struct text_device_deleter {
    void operator()(TextOutputDev *device) const {
        static_cast<OutputDev *>(device)->~OutputDev();
        ::operator delete(static_cast<void *>(device));
    }
};

/// The page's reading-order text as `page::text()` gives it (the same `TextOutputDev` and
/// display), but with the line-end hyphens poppler drops kept (`line_writer`) and nothing lost
/// after a U+0000 (the bytes come with their length). False when `page` (of index `index`) is not
/// laid out as poppler-cpp 22.12's: the caller then takes `full_text`.
bool text_with_line_end_hyphens(const poppler::page &page, int index, std::string &out) {
    const page_private_layout *layout = *reinterpret_cast<page_private_layout *const *>(&page);
    if (layout == nullptr || layout->index != index || layout->page == nullptr ||
        layout->page->getNum() != index + 1) {
        return false;
    }
    line_writer writer;
    // Room for twice the compiled layout: the constructor is the library's.
    std::unique_ptr<TextOutputDev, text_device_deleter> device(
        static_cast<TextOutputDev *>(::operator new(2 * sizeof(TextOutputDev))));
    std::memset(static_cast<void *>(device.get()), 0, 2 * sizeof(TextOutputDev));
    api().text_output_dev_create(device.get(), &line_writer::write, &writer, false, 0, false, false);
    api().page_display(layout->page, device.get(), 72, 72, 0, false, true, false, nullptr, nullptr, nullptr, nullptr,
                       false);
    out = std::move(writer.text);
    return true;
}

/// A malloc'd NUL-terminated copy of `bytes`, or NULL when out of memory.
char *copy_text(const std::string &bytes) {
    char *copy = static_cast<char *>(std::malloc(bytes.size() + 1));
    if (copy == nullptr) {
        return nullptr;
    }
    std::memcpy(copy, bytes.data(), bytes.size());
    copy[bytes.size()] = '\0';
    return copy;
}

int page_texts(const unsigned char *data, size_t length, const char *password, char ***texts, int *count) {
    if (length == 0 || length > static_cast<size_t>(INT_MAX)) {
        return CDX_POPPLER_TEXT_FAILED;
    }
    const std::string secret = password != nullptr ? password : "";
    // load_from_raw_data neither copies nor frees `data`; the document must be gone when we return.
    std::unique_ptr<poppler::document, document_deleter> document(
        api().load_from_raw_data(reinterpret_cast<const char *>(data), static_cast<int>(length), secret, secret));
    if (!document) {
        return CDX_POPPLER_TEXT_DAMAGED;
    }
    // A locked document must not be asked anything else: poppler 22.12 crashes in pages().
    if (api().is_locked(document.get())) {
        return CDX_POPPLER_TEXT_LOCKED;
    }
    const int pages = api().pages(document.get());
    if (pages < 0) {
        return CDX_POPPLER_TEXT_DAMAGED;
    }
    char **result = static_cast<char **>(std::calloc(pages > 0 ? static_cast<size_t>(pages) : 1, sizeof(char *)));
    if (result == nullptr) {
        return CDX_POPPLER_TEXT_FAILED;
    }
    int done = 0;
    try {
        for (; done < pages; ++done) {
            std::unique_ptr<poppler::page, page_deleter> page(api().create_page(document.get(), done));
            std::string bytes;
            if (page && !text_with_line_end_hyphens(*page, done, bytes)) {
                bytes = full_text(*page);
            }
            result[done] = copy_text(bytes);
            if (result[done] == nullptr) {
                cdx_poppler_free_page_texts(result, done);
                return CDX_POPPLER_TEXT_FAILED;
            }
        }
    } catch (...) {
        cdx_poppler_free_page_texts(result, done);
        throw;
    }
    *texts = result;
    *count = pages;
    return CDX_POPPLER_TEXT_OK;
}

}  // namespace

extern "C" int cdx_poppler_page_texts(const unsigned char *data, size_t length, const char *password, char ***texts,
                                      int *count) {
    if (texts == nullptr || count == nullptr) {
        return CDX_POPPLER_TEXT_FAILED;
    }
    *texts = nullptr;
    *count = 0;
    // The libraries are loaded on first use (CPopplerRuntime); none: no texts.
    if (data == nullptr || cdx_poppler_load(nullptr) == nullptr) {
        return CDX_POPPLER_TEXT_FAILED;
    }
    try {
        return page_texts(data, length, password, texts, count);
    } catch (...) {
        return CDX_POPPLER_TEXT_FAILED;
    }
}

extern "C" void cdx_poppler_free_page_texts(char **texts, int count) {
    if (texts == nullptr) {
        return;
    }
    for (int index = 0; index < count; ++index) {
        std::free(texts[index]);
    }
    std::free(texts);
}
