#ifndef CIPHERDEX_CSQLCIPHER_SHIM_H
#define CIPHERDEX_CSQLCIPHER_SHIM_H

// SQLCipher only declares sqlite3_key / sqlite3_rekey when SQLITE_HAS_CODEC is defined.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif

#include <sqlcipher/sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type cipherdex_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic; Swift cannot call it directly.
static inline int cipherdex_enable_fts3_tokenizer(sqlite3 *db, int enable) {
    int result = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, enable, &result);
}

/* ---- FTS3/FTS4 tokenizer interface -------------------------------------------------------
 * fts3_tokenizer.h is not shipped with libsqlcipher-dev; these are its version 0 declarations,
 * with the layout SQLite 3.15 expects (sqlite3_tokenizer_module, sqlite3_tokenizer,
 * sqlite3_tokenizer_cursor). A module is registered with SELECT fts3_tokenizer(name, blob),
 * where blob holds the module pointer, after cipherdex_enable_fts3_tokenizer(db, 1). */
typedef struct sqlite3_tokenizer_module sqlite3_tokenizer_module;
typedef struct sqlite3_tokenizer sqlite3_tokenizer;
typedef struct sqlite3_tokenizer_cursor sqlite3_tokenizer_cursor;

struct sqlite3_tokenizer_module {
    int iVersion;
    int (*xCreate)(int argc, const char *const *argv, sqlite3_tokenizer **ppTokenizer);
    int (*xDestroy)(sqlite3_tokenizer *pTokenizer);
    int (*xOpen)(sqlite3_tokenizer *pTokenizer, const char *pInput, int nBytes, sqlite3_tokenizer_cursor **ppCursor);
    int (*xClose)(sqlite3_tokenizer_cursor *pCursor);
    int (*xNext)(sqlite3_tokenizer_cursor *pCursor, const char **ppToken, int *pnBytes,
                 int *piStartOffset, int *piEndOffset, int *piPosition);
};

/* SQLite sets pModule after xCreate returns. */
struct sqlite3_tokenizer {
    const sqlite3_tokenizer_module *pModule;
};

/* SQLite sets pTokenizer after xOpen returns. */
struct sqlite3_tokenizer_cursor {
    sqlite3_tokenizer *pTokenizer;
};

/* Cipherdex's tokenizer instance: the SQLite base first, then its options. */
typedef struct cipherdex_tokenizer {
    sqlite3_tokenizer base;
    int stemming;
} cipherdex_tokenizer;

/* Cipherdex's cursor: the SQLite base first, then a retained Swift object (the scanner state). */
typedef struct cipherdex_tokenizer_cursor {
    sqlite3_tokenizer_cursor base;
    void *state;
} cipherdex_tokenizer_cursor;

/* SQLITE_DETERMINISTIC, for sqlite3_create_function_v2 flags. */
static inline int cipherdex_sqlite_deterministic(void) {
    return SQLITE_DETERMINISTIC;
}

#endif
