#ifndef CIPHERDEX_CZLIB_SHIM_H
#define CIPHERDEX_CZLIB_SHIM_H

// zlib, for the page text kept for previews (compressed before SQLCipher encrypts the page that
// holds it; ARCHITECTURE.md, "Full-text search"). libz.so.1 is already loaded by every process
// that links poppler, cairo or libpng.
#include <zlib.h>

#endif
