// Imports the system SQLite into Swift. SQLITE_TRANSIENT is a cast macro and does not import.
#pragma once
#include <sqlite3.h>

static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
