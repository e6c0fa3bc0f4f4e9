#ifndef CEXTRACT_HELPER_ENTRY_H
#define CEXTRACT_HELPER_ENTRY_H

/// 1 when this file's code is part of the main executable (so re-executing `/proc/self/exe` runs
/// the constructor below, which serves as the PDF extraction helper), 0 when it was loaded from a
/// shared library or built with a sanitizer (whose shadow memory does not fit under the helper's
/// RLIMIT_AS cap).
int cipherdex_helper_entry_in_main_executable(void);

/// Makes the process not dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`): no core file of it, and
/// processes of the same user without CAP_SYS_PTRACE cannot attach to it or read its memory or
/// environment through /proc. The helper's first act (`execve` makes every program dumpable
/// again). Returns 0, or -1 with errno set.
int cipherdex_helper_make_not_dumpable(void);

#endif
