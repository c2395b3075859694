// Page checksums for SQLite databases: a VFS shim that keeps an 8-byte checksum in the reserved
// bytes at the end of every page of the main database file, writes it with each page written to
// that file and verifies it with each page read from it. The write-ahead log is never touched.
#pragma once
#include <stdint.h>

/// The name of the VFS; open a connection with it (sqlite3_open_v2's last argument).
#define BRACELET_CHECKSUM_VFS "bracelet-checksum"

/// Reserved bytes per page the checksum needs (SQLITE_FCNTL_RESERVE_BYTES, then VACUUM).
#define BRACELET_CHECKSUM_RESERVE 8

/// Registers the VFS (once per process; later calls do nothing). Returns an SQLite result code.
int bracelet_checksum_vfs_register(void);

/// The checksum of one page of `size` bytes, as stored in its last 8 bytes (little-endian).
uint64_t bracelet_page_checksum(const unsigned char *page, int size);

/// The last page of a database file that failed its checksum on this thread (1-based); 0 when none
/// failed since bracelet_checksum_clear_failure.
int64_t bracelet_checksum_last_failure(void);

/// Forgets the last failure of this thread (bracelet_checksum_last_failure returns 0 until the next).
void bracelet_checksum_clear_failure(void);

/// Verifies every page of the database file at `path` (not its WAL) by reading it directly.
/// Writes up to `capacity` damaged page numbers into `damaged`, the page count into `pages`, and
/// returns how many pages are damaged (possibly more than `capacity`); -1 when the file cannot be
/// read, -2 when its header is not an SQLite header with checksums (no 8 reserved bytes).
int64_t bracelet_checksum_scan(const char *path, int64_t *damaged, int64_t capacity, int64_t *pages);
