#ifndef CIPHERDEX_CPOPPLERRUNTIMEABICHECK_H
#define CIPHERDEX_CPOPPLERRUNTIMEABICHECK_H

// CPopplerRuntime's declarations compiled against poppler-glib's, GLib's and cairo's own headers:
// the check is the compilation itself (static assertions in ABICheck.c); the function lets a test
// link it.

/// The number of C functions CPopplerRuntime declares, all checked.
int cdx_poppler_abi_checked_functions(void);

#endif
