#ifndef CIPHERDEX_CPOPPLER_SHIM_H
#define CIPHERDEX_CPOPPLER_SHIM_H

#include <poppler.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <glib.h>
#include <gio/gio.h>

/// POPPLER_ERROR is a macro around a function call; Swift cannot import it.
static inline GQuark cipherdex_poppler_error_quark(void) {
    return POPPLER_ERROR;
}

/// g_object_unref takes a gpointer; this keeps call sites typed.
static inline void cipherdex_g_object_unref(void *object) {
    if (object != NULL) {
        g_object_unref(object);
    }
}

#endif
