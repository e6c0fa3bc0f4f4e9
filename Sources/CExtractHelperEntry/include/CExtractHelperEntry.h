#ifndef CEXTRACT_HELPER_ENTRY_H
#define CEXTRACT_HELPER_ENTRY_H

/// 1 when this file's code is part of the main executable (so re-executing `/proc/self/exe` runs
/// the constructor below, which serves as the PDF extraction helper), 0 when it was loaded from a
/// shared library or built with a sanitizer (whose shadow memory does not fit under the helper's
/// RLIMIT_AS cap).
int cipherdex_helper_entry_in_main_executable(void);

#endif
