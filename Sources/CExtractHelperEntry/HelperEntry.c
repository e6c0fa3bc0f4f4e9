// The entry of an executable re-run as Cipherdex's PDF extraction helper.
//
// IsolatedExtractorPool starts the helper by executing `/proc/self/exe` (the host application
// itself) with CIPHERDEX_EXTRACT_HELPER_MODE=1 in its environment and `--cipherdex-extract-helper`
// as argv[1]. The constructor below runs before the host's `main`: when both markers are present
// it serves the helper's requests (the Swift entry `cipherdex_extract_helper_main`, in
// CipherdexExtraction) and `_exit`s, so the host's own code never runs in the helper. Without
// the markers it returns at once. Constructors without a priority run in link order: this one
// runs after every shared library's initialisers (the Swift runtime, Foundation) and after the
// Swift image registration (swiftrt.o is linked first), but before initialisers linked after it
// (a static Swift runtime and Foundation), so in helper mode it first runs those itself.
//
// In helper mode its first act is to make the process not dumpable (`prctl(PR_SET_DUMPABLE, 0)`):
// `execve` made it dumpable again although its parent is not, and a dumpable helper's memory (the
// decrypted PDF, its text, a PDF password) is readable through /proc/PID/mem by any process of
// the same user, and goes to a core_pattern pipe whatever RLIMIT_CORE says.
#define _GNU_SOURCE
#include "CExtractHelperEntry.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

// CipherdexExtraction's `@_cdecl("cipherdex_extract_helper_main")`: serves requests, returns the
// exit status.
extern int cipherdex_extract_helper_main(int argc, char **argv);

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CIPHERDEX_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CIPHERDEX_SANITIZED 1
#endif

// dl_iterate_phdr reports the main program first: 1 when `data` lies in one of its loaded
// segments, 2 otherwise (either stops the iteration).
static int cipherdex_in_first_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t address = (uintptr_t)data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)header->p_vaddr;
        if (address >= start && address < start + (uintptr_t)header->p_memsz) return 1;
    }
    return 2;
}

int cipherdex_helper_make_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L) == 0 ? 0 : -1;
}

int cipherdex_helper_entry_in_main_executable(void) {
#ifdef CIPHERDEX_SANITIZED
    return 0;
#else
    return dl_iterate_phdr(cipherdex_in_first_object, (void *)&cipherdex_helper_entry_in_main_executable) == 1;
#endif
}

// The executable's initialiser array, defined by the linker (hidden, so a reference from a shared
// library resolves to that library's own array, or to nothing: weak).
typedef void (*cipherdex_initializer)(int, char **, char **);
extern cipherdex_initializer __init_array_start[] __attribute__((weak, visibility("hidden")));
extern cipherdex_initializer __init_array_end[] __attribute__((weak, visibility("hidden")));

static void cipherdex_helper_entry(int argc, char **argv, char **envp);

// Runs the initialisers that come after this one in the executable's array, as the C library
// would after it returns: with a statically linked Swift runtime and Foundation
// (`--static-swift-stdlib`) their initialisers are linked after this file and have not run yet.
// The helper `_exit`s, so none of them runs twice.
static void cipherdex_run_later_initializers(int argc, char **argv, char **envp) {
    if (__init_array_start == NULL || __init_array_end == NULL) return;
    cipherdex_initializer *entry = __init_array_start;
    while (entry < __init_array_end && *entry != cipherdex_helper_entry) entry++;
    if (entry == __init_array_end) return;
    for (entry++; entry < __init_array_end; entry++) {
        if (*entry != NULL && *entry != (cipherdex_initializer)-1) (*entry)(argc, argv, envp);
    }
}

__attribute__((constructor)) static void cipherdex_helper_entry(int argc, char **argv, char **envp) {
    const char *mode = getenv("CIPHERDEX_EXTRACT_HELPER_MODE");
    if (mode == NULL || strcmp(mode, "1") != 0) return;
    if (argc < 2 || argv == NULL || argv[1] == NULL || strcmp(argv[1], "--cipherdex-extract-helper") != 0) return;
    if (cipherdex_helper_make_not_dumpable() != 0) {
        static const char message[] = "cipherdex-extract: cannot make the helper not dumpable (prctl)\n";
        ssize_t written = write(2, message, sizeof message - 1);
        (void)written;  // nothing more to do when standard error is gone: the exit status says it
        _exit(2);
    }
    cipherdex_run_later_initializers(argc, argv, envp);
    _exit(cipherdex_extract_helper_main(argc, argv));
}
