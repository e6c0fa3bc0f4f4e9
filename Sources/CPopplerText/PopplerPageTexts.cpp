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
/// final form feed; a band that comes back cut short (see `full_text`) is split in two at the
/// widest gap between lines nearest its middle (from the word boxes in `words`, sorted by top)
/// and each half read again, at most `depth` times, so only the line holding the U+0000 loses
/// the rest of itself.
std::string band_text(const poppler::page &page, const std::vector<poppler::rectf> &words, double left, double width,
                      double top, double bottom, int depth) {
    std::string text = utf8_text(
        page.text(poppler::rectf(left, top, width, bottom - top), poppler::page::non_raw_non_physical_layout));
    const bool complete = text.empty() || text.back() == '\f';
    while (!text.empty() && (text.back() == '\f' || text.back() == '\n')) {
        text.pop_back();
    }
    if (complete || depth == 0) {
        return text;
    }
    // Candidate cuts: the space between the bottom of the lines so far and the next word's top.
    double best = -1, reach = top, middle = (top + bottom) / 2;
    for (const poppler::rectf &box : words) {
        if (box.y() + box.height() <= top || box.y() >= bottom) {
            continue;
        }
        if (box.y() > reach && reach > top) {
            const double cut = (reach + box.y()) / 2;
            if (best < 0 || std::abs(cut - middle) < std::abs(best - middle)) {
                best = cut;
            }
        }
        reach = std::max(reach, box.y() + box.height());
    }
    if (best <= top || best >= bottom) {
        return text;
    }
    std::string upper = band_text(page, words, left, width, top, best, depth - 1);
    std::string lower = band_text(page, words, left, width, best, bottom, depth - 1);
    if (!upper.empty() && !lower.empty()) {
        upper.push_back('\n');
    }
    return upper + lower;
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
    std::string banded = band_text(page, words, minX - 1, maxX - minX + 2, minY - 1, maxY + 1, 12);
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
