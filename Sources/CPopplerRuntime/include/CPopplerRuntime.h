#ifndef CIPHERDEX_CPOPPLERRUNTIME_H
#define CIPHERDEX_CPOPPLERRUNTIME_H

// poppler-glib, GLib, GIO, cairo and poppler-cpp, loaded with dlopen instead of linked.
//
// Every process that links CipherdexExtraction used to map poppler, glib, cairo and their ~47
// dependencies at start (Debian links them with BIND_NOW: ~23,000 symbol and ~120,000 relative
// relocations, 15-18 ms of CPU per process), although only the PDF extraction helper (and an
// in-process PDFTextExtractor) calls them. Nothing here links them: `cdx_poppler_load` dlopens
// them by soname on first use and resolves every function into one process-wide table. Only the
// declarations Cipherdex needs are written out below, with the layout of poppler-glib 22.12 /
// GLib 2.74 / cairo 1.16 on LP64 (checked against the real headers by CPopplerRuntimeABICheck,
// compiled with the tests).
//
// Swift imports this header only as `internal import CPopplerRuntime` (PDFTextExtractor,
// GlyphGapSplitter, PageRecognizer, PopplerLibraries); CPopplerText's C++ reads the poppler-cpp
// entries of the same table.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Types (opaque unless Cipherdex reads their fields)

typedef struct _PopplerDocument cdx_PopplerDocument;
typedef struct _PopplerPage cdx_PopplerPage;
typedef struct _PopplerAnnot cdx_PopplerAnnot;
typedef struct _GBytes cdx_GBytes;
typedef struct _GInputStream cdx_GInputStream;
typedef struct _GCancellable cdx_GCancellable;
typedef struct _GDateTime cdx_GDateTime;
typedef struct _cairo cdx_cairo_t;
typedef struct _cairo_surface cdx_cairo_surface_t;

/// GLib's `gboolean`, `guint`, `gsize`, `goffset` (gint64 is `long` on LP64) and `GQuark`.
typedef int cdx_gboolean;
typedef unsigned int cdx_guint;
typedef unsigned long cdx_gsize;
typedef long cdx_goffset;
typedef uint32_t cdx_GQuark;

/// The layout of GLib's `GError`.
struct cdx_GError_layout {
    cdx_GQuark domain;
    int code;
    char *message;
};
/// The layout of GLib's `GList`.
struct cdx_GList_layout {
    void *data;
    struct cdx_GList_layout *next;
    struct cdx_GList_layout *prev;
};
/// The layout of poppler-glib's `PopplerRectangle`.
struct cdx_PopplerRectangle_layout {
    double x1;
    double y1;
    double x2;
    double y2;
};
/// The layout of poppler-glib's `PopplerAnnotMapping`.
struct cdx_PopplerAnnotMapping_layout {
    struct cdx_PopplerRectangle_layout area;
    cdx_PopplerAnnot *annot;
};
/// The layout of poppler-glib's `PopplerImageMapping`.
struct cdx_PopplerImageMapping_layout {
    struct cdx_PopplerRectangle_layout area;
    int image_id;
};

#ifdef CDX_POPPLER_ABI_CHECK
// The check compiles the table with the real headers' types (CPopplerRuntimeABICheck).
typedef GError cdx_GError;
typedef GList cdx_GList;
typedef PopplerRectangle cdx_PopplerRectangle;
typedef PopplerAnnotMapping cdx_PopplerAnnotMapping;
typedef PopplerImageMapping cdx_PopplerImageMapping;
typedef PopplerAnnotType cdx_PopplerAnnotType;
typedef cairo_format_t cdx_cairo_format_t;
typedef cairo_status_t cdx_cairo_status_t;
#else
typedef struct cdx_GError_layout cdx_GError;
typedef struct cdx_GList_layout cdx_GList;
typedef struct cdx_PopplerRectangle_layout cdx_PopplerRectangle;
typedef struct cdx_PopplerAnnotMapping_layout cdx_PopplerAnnotMapping;
typedef struct cdx_PopplerImageMapping_layout cdx_PopplerImageMapping;
/// poppler-glib's `PopplerAnnotType`, cairo's `cairo_format_t` and `cairo_status_t`: enums
/// without negative values, so `unsigned int` in the C ABI.
typedef unsigned int cdx_PopplerAnnotType;
typedef unsigned int cdx_cairo_format_t;
typedef unsigned int cdx_cairo_status_t;
#endif

// The enumerators Cipherdex uses (their values are part of the libraries' ABI).
/// `POPPLER_ERROR_ENCRYPTED` (a `GError` code of `poppler_error_quark()`).
#define CDX_POPPLER_ERROR_ENCRYPTED 1
/// `POPPLER_ANNOT_POPUP`.
#define CDX_POPPLER_ANNOT_POPUP 16u
/// `CAIRO_FORMAT_RGB24`.
#define CDX_CAIRO_FORMAT_RGB24 1u
/// `CAIRO_STATUS_SUCCESS`.
#define CDX_CAIRO_STATUS_SUCCESS 0u
/// `CAIRO_STATUS_NO_MEMORY`.
#define CDX_CAIRO_STATUS_NO_MEMORY 1u

// MARK: - The libraries and their functions

/// The libraries, by soname, in the order they are opened.
typedef enum {
    CDX_POPPLER_LIBRARY_GLIB = 0,
    CDX_POPPLER_LIBRARY_GOBJECT = 1,
    CDX_POPPLER_LIBRARY_GIO = 2,
    CDX_POPPLER_LIBRARY_CAIRO = 3,
    CDX_POPPLER_LIBRARY_POPPLER_GLIB = 4,
    CDX_POPPLER_LIBRARY_POPPLER_CPP = 5,
    CDX_POPPLER_LIBRARY_COUNT = 6,
} cdx_poppler_library;

/// The sonames `cdx_poppler_load` opens, indexed by `cdx_poppler_library`.
extern const char *const cdx_poppler_default_sonames[CDX_POPPLER_LIBRARY_COUNT];

// X(library, return type, name, parameter types): every C function Cipherdex calls.
#define CDX_POPPLER_C_FUNCTIONS(X)                                                                           \
    X(GLIB, void, g_free, (void *))                                                                          \
    X(GLIB, cdx_GBytes *, g_bytes_new, (const void *, cdx_gsize))                                            \
    X(GLIB, void, g_bytes_unref, (cdx_GBytes *))                                                             \
    X(GLIB, void, g_error_free, (cdx_GError *))                                                              \
    X(GLIB, void, g_date_time_unref, (cdx_GDateTime *))                                                      \
    X(GLIB, char *, g_date_time_format_iso8601, (cdx_GDateTime *))                                           \
    X(GOBJECT, void, g_object_unref, (void *))                                                               \
    X(GIO, cdx_GInputStream *, g_memory_input_stream_new_from_bytes, (cdx_GBytes *))                         \
    X(CAIRO, cdx_cairo_surface_t *, cairo_image_surface_create, (cdx_cairo_format_t, int, int))              \
    X(CAIRO, cdx_cairo_status_t, cairo_surface_status, (cdx_cairo_surface_t *))                              \
    X(CAIRO, void, cairo_surface_destroy, (cdx_cairo_surface_t *))                                           \
    X(CAIRO, void, cairo_surface_flush, (cdx_cairo_surface_t *))                                             \
    X(CAIRO, unsigned char *, cairo_image_surface_get_data, (cdx_cairo_surface_t *))                         \
    X(CAIRO, int, cairo_image_surface_get_stride, (cdx_cairo_surface_t *))                                   \
    X(CAIRO, cdx_cairo_t *, cairo_create, (cdx_cairo_surface_t *))                                           \
    X(CAIRO, cdx_cairo_status_t, cairo_status, (cdx_cairo_t *))                                              \
    X(CAIRO, void, cairo_destroy, (cdx_cairo_t *))                                                           \
    X(CAIRO, void, cairo_set_source_rgb, (cdx_cairo_t *, double, double, double))                            \
    X(CAIRO, void, cairo_paint, (cdx_cairo_t *))                                                             \
    X(CAIRO, void, cairo_scale, (cdx_cairo_t *, double, double))                                             \
    X(POPPLER_GLIB, cdx_GQuark, poppler_error_quark, (void))                                                 \
    X(POPPLER_GLIB, cdx_PopplerDocument *, poppler_document_new_from_bytes,                                  \
      (cdx_GBytes *, const char *, cdx_GError **))                                                           \
    X(POPPLER_GLIB, cdx_PopplerDocument *, poppler_document_new_from_stream,                                 \
      (cdx_GInputStream *, cdx_goffset, const char *, cdx_GCancellable *, cdx_GError **))                    \
    X(POPPLER_GLIB, int, poppler_document_get_n_pages, (cdx_PopplerDocument *))                              \
    X(POPPLER_GLIB, cdx_PopplerPage *, poppler_document_get_page, (cdx_PopplerDocument *, int))              \
    X(POPPLER_GLIB, char *, poppler_document_get_title, (cdx_PopplerDocument *))                             \
    X(POPPLER_GLIB, char *, poppler_document_get_author, (cdx_PopplerDocument *))                            \
    X(POPPLER_GLIB, char *, poppler_document_get_subject, (cdx_PopplerDocument *))                           \
    X(POPPLER_GLIB, char *, poppler_document_get_keywords, (cdx_PopplerDocument *))                          \
    X(POPPLER_GLIB, char *, poppler_document_get_creator, (cdx_PopplerDocument *))                           \
    X(POPPLER_GLIB, char *, poppler_document_get_producer, (cdx_PopplerDocument *))                          \
    X(POPPLER_GLIB, char *, poppler_document_get_pdf_version_string, (cdx_PopplerDocument *))                \
    X(POPPLER_GLIB, cdx_GDateTime *, poppler_document_get_creation_date_time, (cdx_PopplerDocument *))       \
    X(POPPLER_GLIB, cdx_GDateTime *, poppler_document_get_modification_date_time, (cdx_PopplerDocument *))   \
    X(POPPLER_GLIB, char *, poppler_page_get_text, (cdx_PopplerPage *))                                      \
    X(POPPLER_GLIB, cdx_gboolean, poppler_page_get_text_layout,                                              \
      (cdx_PopplerPage *, cdx_PopplerRectangle **, cdx_guint *))                                             \
    X(POPPLER_GLIB, cdx_GList *, poppler_page_get_image_mapping, (cdx_PopplerPage *))                        \
    X(POPPLER_GLIB, void, poppler_page_free_image_mapping, (cdx_GList *))                                    \
    X(POPPLER_GLIB, cdx_GList *, poppler_page_get_annot_mapping, (cdx_PopplerPage *))                        \
    X(POPPLER_GLIB, void, poppler_page_free_annot_mapping, (cdx_GList *))                                    \
    X(POPPLER_GLIB, cdx_PopplerAnnotType, poppler_annot_get_annot_type, (cdx_PopplerAnnot *))                \
    X(POPPLER_GLIB, char *, poppler_annot_get_contents, (cdx_PopplerAnnot *))                                \
    X(POPPLER_GLIB, void, poppler_page_get_size, (cdx_PopplerPage *, double *, double *))                    \
    X(POPPLER_GLIB, void, poppler_page_render, (cdx_PopplerPage *, cdx_cairo_t *))

// X(field, mangled name): the out-of-line poppler-cpp 22.12 members CPopplerText calls, and the
// two of poppler core it calls for a page's text with its line-end hyphens (`core_`), as
// `void *` (CPopplerText casts each to a free function taking `this` first: the Itanium C++ ABI
// passes a member's `this` like a first argument, after the pointer for a returned class).
#define CDX_POPPLER_CPP_FUNCTIONS(X)                                                                         \
    X(document_load_from_raw_data,                                                                           \
      "_ZN7poppler8document18load_from_raw_dataEPKciRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESA_") \
    X(document_destroy, "_ZN7poppler8documentD1Ev")                                                          \
    X(document_is_locked, "_ZNK7poppler8document9is_lockedEv")                                               \
    X(document_pages, "_ZNK7poppler8document5pagesEv")                                                       \
    X(document_create_page, "_ZNK7poppler8document11create_pageEi")                                          \
    X(page_destroy, "_ZN7poppler4pageD1Ev")                                                                  \
    X(page_text, "_ZNK7poppler4page4textERKNS_9rectangleIdEENS0_16text_layout_enumE")                        \
    X(page_text_list, "_ZNK7poppler4page9text_listEv")                                                       \
    X(text_box_destroy, "_ZN7poppler8text_boxD1Ev")                                                          \
    X(text_box_bbox, "_ZNK7poppler8text_box4bboxEv")                                                         \
    X(ustring_destroy, "_ZN7poppler7ustringD1Ev")                                                          \
    /* poppler core (libpoppler, a dependency of poppler-cpp: dlsym on its handle finds them) */           \
    X(core_text_output_dev_create, "_ZN13TextOutputDevC1EPFvPvPKciES0_bdbb")                               \
    X(core_page_display, "_ZN4Page7displayEP9OutputDevddibbbPFbPvES2_PFbP5AnnotS2_ES2_b")

/// Every function of the libraries Cipherdex calls, resolved and checked by `cdx_poppler_load`.
typedef struct cdx_poppler_api {
#define CDX_POPPLER_FIELD(library, result, name, parameters) result(*name) parameters;
    CDX_POPPLER_C_FUNCTIONS(CDX_POPPLER_FIELD)
#undef CDX_POPPLER_FIELD
#define CDX_POPPLER_CPP_FIELD(field, symbol) void *cpp_##field;
    CDX_POPPLER_CPP_FUNCTIONS(CDX_POPPLER_CPP_FIELD)
#undef CDX_POPPLER_CPP_FIELD
} cdx_poppler_api;

/// Opens the libraries (`cdx_poppler_default_sonames`) and resolves every function, once per
/// process (later calls return the first outcome; thread-safe). Returns the table, or NULL with
/// `*error` (when not NULL) pointing to a message naming the library or symbol that is missing
/// (static storage, valid for the process's life). Runs the libraries' constructors.
const cdx_poppler_api *cdx_poppler_load(const char **error);

/// Whether this process has loaded the libraries (`cdx_poppler_load` succeeded).
int cdx_poppler_is_loaded(void);

/// `cdx_poppler_load`'s work with other sonames (`sonames[library]`), into `api`, without touching
/// the process-wide table: for tests of a missing library or symbol. Returns 0, or -1 with the
/// message written to `error` (`capacity` bytes, NUL-terminated). Libraries it opened stay open.
int cdx_poppler_load_from(const char *const sonames[CDX_POPPLER_LIBRARY_COUNT], cdx_poppler_api *api,
                          char *error, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
