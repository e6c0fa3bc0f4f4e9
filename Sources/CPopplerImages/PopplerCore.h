// The few out-of-line members of poppler core (libpoppler, 22.12) the image check calls, resolved
// with dlsym through poppler-glib's handle (libpoppler is its dependency: its soname, which changes
// with every poppler release, is never named), and a holder for the `Object`s they return.
//
// Nothing here links libpoppler: its headers give the classes' layout and inline members, and
// every out-of-line member is called through a pointer, cast to a free function taking `this`
// first (the Itanium C++ ABI passes `this` like a first argument, after the hidden pointer of a
// returned class). Only inline members that touch no out-of-line symbol are used (`Page::getNum`,
// `PDFDoc::getXRef`, `Array::getLength`, the virtual members of `Stream`); `Object`'s inline
// accessors call poppler's `error()`, so an `Object` is read through `object_view`, its layout.
// A direct reference left by mistake fails the link of every executable.

#ifndef CIPHERDEX_POPPLER_CORE_H
#define CIPHERDEX_POPPLER_CORE_H

// Object.h first: it includes Array.h, Dict.h and Stream.h after its class, for its inline
// members; included before it, they would leave those classes incomplete there.
#include <poppler/Object.h>

#include <poppler/Array.h>
#include <poppler/Dict.h>
#include <poppler/Error.h>
#include <poppler/PDFDoc.h>
#include <poppler/Page.h>
#include <poppler/Stream.h>
#include <poppler/XRef.h>

namespace cdx_core {

/// The fields of poppler's `Object`: its type and the union of its values (a standard-layout class
/// whose two members are private).
struct object_view {
    ObjType type;
    union {
        bool booln;
        int intg;
        long long int64g;
        double real;
        char *cString;
        Array *array;
        Dict *dict;
        Stream *stream;
        Ref ref;
    };
};
static_assert(sizeof(object_view) == sizeof(Object), "poppler's Object layout changed");
static_assert(alignof(object_view) == alignof(Object), "poppler's Object layout changed");

/// An `Object` returned by value by poppler (same layout), freed through `Object::free`.
class object_result {
public:
    /// Takes `other`'s object, leaving it none (as `Object`'s own move does, but `objNone`).
    object_result(object_result &&other) noexcept;
    object_result(const object_result &) = delete;
    object_result &operator=(const object_result &) = delete;
    object_result &operator=(object_result &&) = delete;
    ~object_result();

    /// Its type and value.
    const object_view &view() const { return *reinterpret_cast<const object_view *>(storage); }
    /// Whether it is of `type`.
    bool is(ObjType type) const { return view().type == type; }
    /// Whether it is the name `name`.
    bool is_name(const char *name) const;
    /// Its value as an integer: an integer, or a real truncated (as poppler reads image sizes);
    /// `fallback` for anything else.
    long long integer(long long fallback) const;
    /// Its dictionary: a dictionary's, or a stream's; NULL for anything else.
    Dict *dict() const;
    /// Its stream, or NULL.
    Stream *stream() const { return is(objStream) ? view().stream : nullptr; }

private:
    alignas(Object) unsigned char storage[sizeof(Object)];
};

/// The poppler core members the check calls, typed.
struct core_api {
    void (*set_error_callback)(ErrorCallback);
    object_result (*dict_lookup)(const Dict *, const char *, Ref *, int);
    object_result (*array_get)(const Array *, int, Ref *, int);
    void (*object_free)(Object *);
    Dict *(*page_resource_dict)(Page *);
    object_result (*xref_fetch)(XRef *, Ref, int);
};

/// The table, resolved once per process; NULL with `*error` set to a message (static storage)
/// when poppler-glib is not loaded, is not 22.12, or lacks one of the members.
const core_api *load(const char **error);

/// The table (call only after `load` succeeded).
const core_api &api();

/// `dict[key]`, fetched, with the reference it was fetched from (`Ref::INVALID()` for a direct
/// object) in `*ref` when not NULL.
object_result lookup(const Dict *dict, const char *key, Ref *ref = nullptr);

/// `array[index]`, fetched.
object_result element(const Array *array, int index);

/// `dict[key]`, or `dict[abbreviation]` when `key` is absent (inline images' short keys).
object_result lookup(const Dict *dict, const char *key, const char *abbreviation);

}  // namespace cdx_core

#endif
