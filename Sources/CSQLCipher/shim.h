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

#endif
