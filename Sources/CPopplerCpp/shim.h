#ifndef CIPHERDEX_CPOPPLERCPP_SHIM_H
#define CIPHERDEX_CPOPPLERCPP_SHIM_H

// poppler-cpp's headers are C++ and Swift imports nothing from them: this module exists so that
// SwiftPM passes `pkg-config poppler-cpp`'s include and link flags to the targets that depend on
// it (CPopplerText, whose C++ source calls poppler-cpp behind a C interface).

#endif
