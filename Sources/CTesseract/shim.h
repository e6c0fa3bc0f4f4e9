#ifndef CIPHERDEX_CTESSERACT_SHIM_H
#define CIPHERDEX_CTESSERACT_SHIM_H

// Tesseract's C API (OCR of scanned pages), loaded with dlopen by the extraction helper when it
// is first asked to recognise a page (CipherdexExtraction/Helper/PageRecognizer.swift). Nothing
// links libtesseract: the application's process, and helpers that only read text layers, never
// map it (a helper's address space stays under the smallest RLIMIT_AS it accepts, 128 MiB).
#include <dlfcn.h>
#include <tesseract/capi.h>

/// The Tesseract functions Cipherdex calls, resolved from libtesseract.so.5.
typedef struct cdx_tesseract_api {
    TessBaseAPI *(*create)(void);
    void (*destroy)(TessBaseAPI *handle);
    int (*init3)(TessBaseAPI *handle, const char *datapath, const char *language);
    BOOL (*set_variable)(TessBaseAPI *handle, const char *name, const char *value);
    void (*set_image)(TessBaseAPI *handle, const unsigned char *data, int width, int height, int bytes_per_pixel,
                      int bytes_per_line);
    void (*set_source_resolution)(TessBaseAPI *handle, int ppi);
    int (*recognize)(TessBaseAPI *handle, ETEXT_DESC *monitor);
    char *(*get_utf8_text)(TessBaseAPI *handle);
    void (*delete_text)(const char *text);
    void (*clear)(TessBaseAPI *handle);
    void (*end)(TessBaseAPI *handle);
    ETEXT_DESC *(*monitor_create)(void);
    void (*monitor_delete)(ETEXT_DESC *monitor);
    void (*monitor_set_deadline_msecs)(ETEXT_DESC *monitor, int deadline);
    const char *(*version)(void);
} cdx_tesseract_api;

/// Loads libtesseract.so.5 (once per process: dlopen counts references) and resolves every
/// function into `api`. Returns 0, or -1 with `*error` set to dlerror()'s message.
static inline int cdx_tesseract_load(cdx_tesseract_api *api, const char **error) {
    void *handle = dlopen("libtesseract.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        *error = dlerror();
        return -1;
    }
#define CDX_TESSERACT_RESOLVE(field, symbol)                                                                   \
    do {                                                                                                       \
        *(void **)(&api->field) = dlsym(handle, #symbol);                                                      \
        if (api->field == NULL) {                                                                              \
            *error = dlerror();                                                                                \
            return -1;                                                                                         \
        }                                                                                                      \
    } while (0)
    CDX_TESSERACT_RESOLVE(create, TessBaseAPICreate);
    CDX_TESSERACT_RESOLVE(destroy, TessBaseAPIDelete);
    CDX_TESSERACT_RESOLVE(init3, TessBaseAPIInit3);
    CDX_TESSERACT_RESOLVE(set_variable, TessBaseAPISetVariable);
    CDX_TESSERACT_RESOLVE(set_image, TessBaseAPISetImage);
    CDX_TESSERACT_RESOLVE(set_source_resolution, TessBaseAPISetSourceResolution);
    CDX_TESSERACT_RESOLVE(recognize, TessBaseAPIRecognize);
    CDX_TESSERACT_RESOLVE(get_utf8_text, TessBaseAPIGetUTF8Text);
    CDX_TESSERACT_RESOLVE(delete_text, TessDeleteText);
    CDX_TESSERACT_RESOLVE(clear, TessBaseAPIClear);
    CDX_TESSERACT_RESOLVE(end, TessBaseAPIEnd);
    CDX_TESSERACT_RESOLVE(monitor_create, TessMonitorCreate);
    CDX_TESSERACT_RESOLVE(monitor_delete, TessMonitorDelete);
    CDX_TESSERACT_RESOLVE(monitor_set_deadline_msecs, TessMonitorSetDeadlineMSecs);
    CDX_TESSERACT_RESOLVE(version, TessVersion);
#undef CDX_TESSERACT_RESOLVE
    return 0;
}

#endif
