// Imports the system SQLite into Swift. SQLITE_TRANSIENT is a cast macro and does not import.
#pragma once
#include <sqlite3.h>

static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic and does not import; this sets how many bytes of a statement or
// savepoint journal are held in memory before it spills to a temporary file. Only before SQLite is
// initialised (else SQLITE_MISUSE).
static inline int csqlite_config_statement_journal_spill(int bytes) { return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes); }
