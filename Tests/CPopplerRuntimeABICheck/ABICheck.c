// Every declaration of CPopplerRuntime.h against the libraries' real headers: each function's
// type, each structure's size and field offsets, each enumerator's value. A mismatch fails the
// build of the tests.
#include <cairo.h>
#include <gio/gio.h>
#include <glib.h>
#include <poppler.h>
#include <stddef.h>

#define CDX_POPPLER_ABI_CHECK 1
#include "CPopplerRuntime.h"
#include "CPopplerRuntimeABICheck.h"

// Functions: the table's field type is the real function's pointer type.
static cdx_poppler_api cdx_check_table;
#define CDX_CHECK_FUNCTION(library, result, name, parameters)                                                  \
    _Static_assert(__builtin_types_compatible_p(__typeof__(cdx_check_table.name), __typeof__(&name)),          \
                   #name " differs from the library's declaration");
CDX_POPPLER_C_FUNCTIONS(CDX_CHECK_FUNCTION)
#undef CDX_CHECK_FUNCTION

// Structures read field by field.
#define CDX_CHECK_FIELD(ours, theirs, field)                                                                   \
    _Static_assert(offsetof(struct ours, field) == offsetof(theirs, field), #theirs "." #field " moved");       \
    _Static_assert(sizeof(((struct ours *)0)->field) == sizeof(((theirs *)0)->field), #theirs "." #field " resized");
_Static_assert(sizeof(struct cdx_GError_layout) == sizeof(GError), "GError");
CDX_CHECK_FIELD(cdx_GError_layout, GError, domain)
CDX_CHECK_FIELD(cdx_GError_layout, GError, code)
CDX_CHECK_FIELD(cdx_GError_layout, GError, message)
_Static_assert(sizeof(struct cdx_GList_layout) == sizeof(GList), "GList");
CDX_CHECK_FIELD(cdx_GList_layout, GList, data)
CDX_CHECK_FIELD(cdx_GList_layout, GList, next)
CDX_CHECK_FIELD(cdx_GList_layout, GList, prev)
_Static_assert(sizeof(struct cdx_PopplerRectangle_layout) == sizeof(PopplerRectangle), "PopplerRectangle");
CDX_CHECK_FIELD(cdx_PopplerRectangle_layout, PopplerRectangle, x1)
CDX_CHECK_FIELD(cdx_PopplerRectangle_layout, PopplerRectangle, y1)
CDX_CHECK_FIELD(cdx_PopplerRectangle_layout, PopplerRectangle, x2)
CDX_CHECK_FIELD(cdx_PopplerRectangle_layout, PopplerRectangle, y2)
_Static_assert(sizeof(struct cdx_PopplerAnnotMapping_layout) == sizeof(PopplerAnnotMapping), "PopplerAnnotMapping");
CDX_CHECK_FIELD(cdx_PopplerAnnotMapping_layout, PopplerAnnotMapping, area)
CDX_CHECK_FIELD(cdx_PopplerAnnotMapping_layout, PopplerAnnotMapping, annot)
_Static_assert(sizeof(struct cdx_PopplerImageMapping_layout) == sizeof(PopplerImageMapping), "PopplerImageMapping");
CDX_CHECK_FIELD(cdx_PopplerImageMapping_layout, PopplerImageMapping, area)
CDX_CHECK_FIELD(cdx_PopplerImageMapping_layout, PopplerImageMapping, image_id)

// Scalars and enums: the types used outside the check.
_Static_assert(sizeof(cdx_gboolean) == sizeof(gboolean) && sizeof(cdx_guint) == sizeof(guint), "gboolean, guint");
_Static_assert(sizeof(cdx_gsize) == sizeof(gsize) && sizeof(cdx_goffset) == sizeof(goffset), "gsize, goffset");
_Static_assert(sizeof(cdx_GQuark) == sizeof(GQuark), "GQuark");
_Static_assert(__builtin_types_compatible_p(unsigned int, __typeof__(+(PopplerAnnotType)0)) ||
                   sizeof(PopplerAnnotType) == sizeof(unsigned int),
               "PopplerAnnotType");
_Static_assert(sizeof(cairo_format_t) == sizeof(unsigned int) && sizeof(cairo_status_t) == sizeof(unsigned int),
               "cairo enums");
_Static_assert(CDX_POPPLER_ERROR_ENCRYPTED == POPPLER_ERROR_ENCRYPTED, "POPPLER_ERROR_ENCRYPTED");
_Static_assert(CDX_POPPLER_ANNOT_POPUP == POPPLER_ANNOT_POPUP, "POPPLER_ANNOT_POPUP");
_Static_assert(CDX_CAIRO_FORMAT_RGB24 == CAIRO_FORMAT_RGB24, "CAIRO_FORMAT_RGB24");
_Static_assert(CDX_CAIRO_STATUS_SUCCESS == CAIRO_STATUS_SUCCESS, "CAIRO_STATUS_SUCCESS");
_Static_assert(CDX_CAIRO_STATUS_NO_MEMORY == CAIRO_STATUS_NO_MEMORY, "CAIRO_STATUS_NO_MEMORY");

int cdx_poppler_abi_checked_functions(void) {
    int count = 0;
#define CDX_COUNT_FUNCTION(library, result, name, parameters) count++;
    CDX_POPPLER_C_FUNCTIONS(CDX_COUNT_FUNCTION)
#undef CDX_COUNT_FUNCTION
    return count;
}
