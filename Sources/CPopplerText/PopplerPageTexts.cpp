// poppler-cpp's page text behind the C interface of CPopplerText.h.

#include "CPopplerText.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

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
    std::string text = utf8_text(
        page.text(poppler::rectf(left, top, width, bottom - top), poppler::page::non_raw_non_physical_layout));
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
    std::string text = utf8_text(page.text(poppler::rectf(), poppler::page::non_raw_non_physical_layout));
    if (text.empty() || text.back() == '\f') {
        return text;
    }
    std::vector<poppler::rectf> words;
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    for (const poppler::text_box &word : page.text_list()) {
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
    std::unique_ptr<poppler::document> document(poppler::document::load_from_raw_data(
        reinterpret_cast<const char *>(data), static_cast<int>(length), secret, secret));
    if (!document) {
        return CDX_POPPLER_TEXT_DAMAGED;
    }
    // A locked document must not be asked anything else: poppler 22.12 crashes in pages().
    if (document->is_locked()) {
        return CDX_POPPLER_TEXT_LOCKED;
    }
    const int pages = document->pages();
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
            std::unique_ptr<poppler::page> page(document->create_page(done));
            std::string bytes;
            if (page) {
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
    if (data == nullptr) {
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
