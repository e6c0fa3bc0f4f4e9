// poppler core's members, resolved through poppler-glib (PopplerCore.h).

#include "PopplerCore.h"

#include "CPopplerRuntime.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>

namespace cdx_core {

namespace {

/// Casts a resolved `void *` to the function pointer type of `target`.
template <typename Function> void assign(Function &target, void *symbol) {
    static_assert(sizeof(Function) == sizeof(void *), "not a function pointer");
    std::memcpy(&target, &symbol, sizeof symbol);
}

// The members' signatures as the headers declare them: a change fails the build here, before
// the mangled names below go stale.
static_assert(sizeof(static_cast<void (*)(ErrorCallback)>(&setErrorCallback)) > 0, "setErrorCallback changed");
static_assert(sizeof(static_cast<Object (Dict::*)(const char *, Ref *, int) const>(&Dict::lookup)) > 0,
              "Dict::lookup changed");
static_assert(sizeof(static_cast<Object (Array::*)(int, Ref *, int) const>(&Array::get)) > 0, "Array::get changed");
static_assert(sizeof(static_cast<Dict *(Page::*)()>(&Page::getResourceDict)) > 0, "Page::getResourceDict changed");
static_assert(sizeof(static_cast<Object (XRef::*)(Ref, int)>(&XRef::fetch)) > 0, "XRef::fetch changed");

core_api table;
const char *failure = nullptr;
char failure_text[256];

void resolve() {
    // Loaded (and kept loaded) by CPopplerRuntime; RTLD_NOLOAD only finds it.
    if (cdx_poppler_load(&failure) == nullptr) {
        return;
    }
    const char *soname = cdx_poppler_default_sonames[CDX_POPPLER_LIBRARY_POPPLER_GLIB];
    void *glib = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (glib == nullptr) {
        failure = "poppler-glib is not loaded";
        return;
    }
    // The layouts compiled in are poppler 22.12's: any other release may differ.
    void *version_symbol = dlsym(glib, "poppler_get_version");
    const char *(*version)(void) = nullptr;
    assign(version, version_symbol);
    const char *running = version != nullptr ? version() : nullptr;
    const char *compiled = POPPLER_VERSION;
    const char *minor_end = std::strchr(std::strchr(compiled, '.') + 1, '.');
    const size_t prefix = minor_end != nullptr ? static_cast<size_t>(minor_end - compiled) + 1 : std::strlen(compiled);
    if (running == nullptr || std::strncmp(running, compiled, prefix) != 0) {
        std::snprintf(failure_text, sizeof failure_text,
                      "poppler %s is loaded, but the image check was built for poppler %s",
                      running != nullptr ? running : "(unknown)", compiled);
        failure = failure_text;
        return;
    }
    struct entry {
        void *&slot;
        const char *mangled;
    };
    void *symbols[6] = {};
    const entry entries[] = {
        {symbols[0], "_Z16setErrorCallbackPFv13ErrorCategoryxPKcE"},
        {symbols[1], "_ZNK4Dict6lookupEPKcP3Refi"},
        {symbols[2], "_ZNK5Array3getEiP3Refi"},
        {symbols[3], "_ZN6Object4freeEv"},
        {symbols[4], "_ZN4Page15getResourceDictEv"},
        {symbols[5], "_ZN4XRef5fetchE3Refi"},
    };
    for (const entry &item : entries) {
        // dlsym on poppler-glib's handle searches its dependencies: libpoppler.
        item.slot = dlsym(glib, item.mangled);
        if (item.slot == nullptr) {
            std::snprintf(failure_text, sizeof failure_text, "%s has no function %s", soname, item.mangled);
            failure = failure_text;
            return;
        }
    }
    assign(table.set_error_callback, symbols[0]);
    assign(table.dict_lookup, symbols[1]);
    assign(table.array_get, symbols[2]);
    assign(table.object_free, symbols[3]);
    assign(table.page_resource_dict, symbols[4]);
    assign(table.xref_fetch, symbols[5]);
}

}  // namespace

const core_api *load(const char **error) {
    static std::once_flag once;
    std::call_once(once, resolve);
    if (failure != nullptr) {
        if (error != nullptr) {
            *error = failure;
        }
        return nullptr;
    }
    return &table;
}

const core_api &api() { return table; }

object_result::object_result(object_result &&other) noexcept {
    std::memcpy(storage, other.storage, sizeof storage);
    reinterpret_cast<object_view *>(other.storage)->type = objNone;
}

object_result::~object_result() { api().object_free(reinterpret_cast<Object *>(storage)); }

bool object_result::is_name(const char *name) const {
    return is(objName) && view().cString != nullptr && std::strcmp(view().cString, name) == 0;
}

long long object_result::integer(long long fallback) const {
    switch (view().type) {
    case objInt:
        return view().intg;
    case objInt64:
        return view().int64g;
    case objReal: {
        const double value = view().real;
        // Out of range (or NaN): not a size poppler would draw.
        return value > -9.0e18 && value < 9.0e18 ? static_cast<long long>(value) : fallback;
    }
    default:
        return fallback;
    }
}

Dict *object_result::dict() const {
    if (is(objDict)) {
        return view().dict;
    }
    if (is(objStream) && view().stream != nullptr) {
        return view().stream->getDict();
    }
    return nullptr;
}

object_result lookup(const Dict *dict, const char *key, Ref *ref) {
    // The member writes the reference unconditionally.
    Ref ignored = Ref::INVALID();
    return api().dict_lookup(dict, key, ref != nullptr ? ref : &ignored, 0);
}

object_result element(const Array *array, int index) {
    Ref ignored = Ref::INVALID();
    return api().array_get(array, index, &ignored, 0);
}

object_result lookup(const Dict *dict, const char *key, const char *abbreviation) {
    object_result value = lookup(dict, key);
    if (value.is(objNull) && abbreviation != nullptr) {
        return lookup(dict, abbreviation);
    }
    return value;
}

}  // namespace cdx_core
