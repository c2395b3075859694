// Page checksums for SQLite databases: a VFS shim that keeps an 8-byte checksum in the reserved
// bytes at the end of every page, writes it with each page and verifies it with each page read.
#pragma once
#include <stdint.h>

/// The name of the VFS; open a connection with it (sqlite3_open_v2's last argument).
#define BRACELET_CHECKSUM_VFS "bracelet-checksum"

/// Reserved bytes per page the checksum needs (PRAGMA-less: SQLITE_FCNTL_RESERVE_BYTES, then VACUUM).
#define BRACELET_CHECKSUM_RESERVE 8

/// sqlite3_file_control opcode on the main database; its argument is an int:
/// - BRACELET_CHECKSUMS_WRITE: write checksums from now on, whatever a header read says. Only for a
///   file that is empty and was just given BRACELET_CHECKSUM_RESERVE reserved bytes.
/// - BRACELET_CHECKSUMS_CONVERTING: the same while a VACUUM rewrites every page with the reserved
///   bytes (pages still read from before carry no checksum, so nothing is verified).
/// - BRACELET_CHECKSUMS_CONVERTED: the VACUUM committed; verify every page read from now on.
/// - BRACELET_CHECKSUMS_OFF: a conversion failed and the file keeps pages without reserved bytes:
///   neither write nor verify checksums until a header says otherwise.
/// - any other value: replaced by 1 when pages are verified on read, else 0.
#define BRACELET_FCNTL_PAGE_CHECKSUMS 0x62726301
#define BRACELET_CHECKSUMS_WRITE 1
#define BRACELET_CHECKSUMS_CONVERTING 2
#define BRACELET_CHECKSUMS_CONVERTED 3
#define BRACELET_CHECKSUMS_OFF 4

/// Registers the VFS (once per process; later calls do nothing). Returns an SQLite result code.
int bracelet_checksum_vfs_register(void);

/// The checksum of one page of `size` bytes, as stored in its last 8 bytes (little-endian).
uint64_t bracelet_page_checksum(const unsigned char *page, int size);

/// The last page that failed its checksum on this thread: the page number (1-based) for a
/// database file, or the frame number (1-based) when `in_wal` is set to 1. 0 when none failed.
int64_t bracelet_checksum_last_failure(int *in_wal);

/// Forgets the last failure of this thread (bracelet_checksum_last_failure returns 0 until the next).
void bracelet_checksum_clear_failure(void);

/// Verifies every page of the database file at `path` (not its WAL) by reading it directly.
/// Writes up to `capacity` damaged page numbers into `damaged`, the page count into `pages`, and
/// returns how many pages are damaged (possibly more than `capacity`); -1 when the file cannot be
/// read, -2 when its header is not an SQLite header with checksums (no 8 reserved bytes).
int64_t bracelet_checksum_scan(const char *path, int64_t *damaged, int64_t capacity, int64_t *pages);
