// poppler-cpp's page text behind the C interface of CPopplerText.h.

#include "CPopplerText.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

/// A malloc'd NUL-terminated copy of `bytes`, or NULL when out of memory.
char *copy_text(const char *bytes, size_t size) {
    char *copy = static_cast<char *>(std::malloc(size + 1));
    if (copy == nullptr) {
        return nullptr;
    }
    if (size > 0) {
        std::memcpy(copy, bytes, size);
    }
    copy[size] = '\0';
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
            poppler::byte_array bytes;
            if (page) {
                bytes = page->text(poppler::rectf(), poppler::page::non_raw_non_physical_layout).to_utf8();
            }
            result[done] = copy_text(bytes.data(), bytes.size());
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
