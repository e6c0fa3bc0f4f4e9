// Loads poppler-glib, GLib, GIO, cairo and poppler-cpp with dlopen (CPopplerRuntime.h).
#include "CPopplerRuntime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

const char *const cdx_poppler_default_sonames[CDX_POPPLER_LIBRARY_COUNT] = {
    [CDX_POPPLER_LIBRARY_GLIB] = "libglib-2.0.so.0",
    [CDX_POPPLER_LIBRARY_GOBJECT] = "libgobject-2.0.so.0",
    [CDX_POPPLER_LIBRARY_GIO] = "libgio-2.0.so.0",
    [CDX_POPPLER_LIBRARY_CAIRO] = "libcairo.so.2",
    [CDX_POPPLER_LIBRARY_POPPLER_GLIB] = "libpoppler-glib.so.8",
    [CDX_POPPLER_LIBRARY_POPPLER_CPP] = "libpoppler-cpp.so.0",
};

/// The Debian package that provides each library, for the error message.
static const char *const cdx_poppler_packages[CDX_POPPLER_LIBRARY_COUNT] = {
    [CDX_POPPLER_LIBRARY_GLIB] = "libglib2.0-0",
    [CDX_POPPLER_LIBRARY_GOBJECT] = "libglib2.0-0",
    [CDX_POPPLER_LIBRARY_GIO] = "libglib2.0-0",
    [CDX_POPPLER_LIBRARY_CAIRO] = "libcairo2",
    [CDX_POPPLER_LIBRARY_POPPLER_GLIB] = "libpoppler-glib8",
    [CDX_POPPLER_LIBRARY_POPPLER_CPP] = "libpoppler-cpp0v5",
};

int cdx_poppler_load_from(const char *const sonames[CDX_POPPLER_LIBRARY_COUNT], cdx_poppler_api *api,
                          char *error, size_t capacity) {
    if (sonames == NULL || api == NULL || error == NULL || capacity == 0) return -1;
    error[0] = '\0';
    memset(api, 0, sizeof *api);
    void *handles[CDX_POPPLER_LIBRARY_COUNT] = {0};
    for (int library = 0; library < CDX_POPPLER_LIBRARY_COUNT; library++) {
        const char *soname = sonames[library];
        // RTLD_NOW: every symbol bound here, never a failed lazy binding later, in a poppler call.
        handles[library] = soname != NULL ? dlopen(soname, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (handles[library] == NULL) {
            const char *reason = soname != NULL ? dlerror() : NULL;
            snprintf(error, capacity, "%s could not be loaded (install %s): %s", soname != NULL ? soname : "(none)",
                     cdx_poppler_packages[library], reason != NULL ? reason : "no library given");
            return -1;
        }
    }
    void *symbol = NULL;
#define CDX_POPPLER_RESOLVE(library, result, name, parameters)                                                \
    symbol = dlsym(handles[CDX_POPPLER_LIBRARY_##library], #name);                                            \
    if (symbol == NULL) {                                                                                     \
        snprintf(error, capacity, "%s has no function %s", sonames[CDX_POPPLER_LIBRARY_##library], #name);    \
        return -1;                                                                                            \
    }                                                                                                         \
    memcpy(&api->name, &symbol, sizeof symbol);
    CDX_POPPLER_C_FUNCTIONS(CDX_POPPLER_RESOLVE)
#undef CDX_POPPLER_RESOLVE
#define CDX_POPPLER_CPP_RESOLVE(field, mangled)                                                               \
    api->cpp_##field = dlsym(handles[CDX_POPPLER_LIBRARY_POPPLER_CPP], mangled);                              \
    if (api->cpp_##field == NULL) {                                                                           \
        snprintf(error, capacity, "%s has no function %s", sonames[CDX_POPPLER_LIBRARY_POPPLER_CPP], mangled); \
        return -1;                                                                                            \
    }
    CDX_POPPLER_CPP_FUNCTIONS(CDX_POPPLER_CPP_RESOLVE)
#undef CDX_POPPLER_CPP_RESOLVE
    return 0;
}

static pthread_once_t cdx_poppler_once = PTHREAD_ONCE_INIT;
static cdx_poppler_api cdx_poppler_table;
static int cdx_poppler_status = -1;
static char cdx_poppler_error[512];

static void cdx_poppler_load_once(void) {
    int status = cdx_poppler_load_from(cdx_poppler_default_sonames, &cdx_poppler_table, cdx_poppler_error,
                                       sizeof cdx_poppler_error);
    __atomic_store_n(&cdx_poppler_status, status, __ATOMIC_RELEASE);
}

const cdx_poppler_api *cdx_poppler_load(const char **error) {
    pthread_once(&cdx_poppler_once, cdx_poppler_load_once);
    if (cdx_poppler_status == 0) return &cdx_poppler_table;
    if (error != NULL) *error = cdx_poppler_error;
    return NULL;
}

int cdx_poppler_is_loaded(void) { return __atomic_load_n(&cdx_poppler_status, __ATOMIC_ACQUIRE) == 0; }
