// Page checksums for SQLite databases: a VFS shim that keeps an 8-byte checksum in the reserved
// bytes at the end of every page of the main database file, writes it with each page written to
// that file and verifies it with each page read from it. The write-ahead log is never touched.
// Pages another SQLite program copied or wrote into the file are told apart from damage by markers in
// the same reserved bytes (see page_checksum.c).
#pragma once
#include <stdint.h>

/// The name of the VFS; open a connection with it (sqlite3_open_v2's last argument).
#define BRACELET_CHECKSUM_VFS "bracelet-checksum"

/// Reserved bytes per page the checksum needs (SQLITE_FCNTL_RESERVE_BYTES, then VACUUM).
#define BRACELET_CHECKSUM_RESERVE 8

/// How many unsealed page numbers a BraceletUnsealed lists (it counts them all).
#define BRACELET_UNSEALED_LISTED 32

/// The file-control opcode (sqlite3_file_control on "main") that copies the unsealed pages this
/// connection read from or wrote to its database file into a BraceletUnsealed, and forgets them.
#define BRACELET_FCNTL_UNSEALED 0x62726301

/// What the reserved bytes of a page in the database file say about it.
enum {
    /// Its checksum matches.
    BRACELET_PAGE_SEALED = 0,
    /// Copied into the file by another SQLite program: a page image bracelet's SQLite made (the HELD
    /// marker, or zeros for a new page), for example by a checkpoint the sqlite3 shell ran on closing.
    BRACELET_PAGE_COPIED = 1,
    /// Written by another program and copied into the file by bracelet's checkpoint (the OUTSIDE
    /// marker), or a page of either kind that bracelet changed before it was verified.
    BRACELET_PAGE_OUTSIDE = 2,
    /// Anything else that fails its checksum: damage.
    BRACELET_PAGE_DAMAGED = 3,
    /// Zeros only: a page SQLite freed (it zeroes them), holding nothing to protect.
    BRACELET_PAGE_EMPTY = 4,
};

/// Unsealed pages (BRACELET_PAGE_COPIED or BRACELET_PAGE_OUTSIDE) of one database file.
typedef struct BraceletUnsealed {
    /// How many there are.
    int64_t count;
    /// How many of them `pages` lists.
    int64_t listed;
    /// The first ones, 1-based page numbers.
    int64_t pages[BRACELET_UNSEALED_LISTED];
    /// 1 where the page is BRACELET_PAGE_OUTSIDE.
    unsigned char outside[BRACELET_UNSEALED_LISTED];
} BraceletUnsealed;

/// The extended attribute of the database file that holds its modification time (seconds.nanoseconds,
/// as text) right after bracelet's last write: a later modification time means another program
/// wrote to the file since. Set whenever bracelet syncs the file, where the file system allows.
#define BRACELET_WRITTEN_XATTR "user.bracelet.written"

/// Whether the file at `path` was modified after bracelet's last write to it: 1 when it was, 0 when
/// not, -1 when bracelet's record is missing or the file cannot be read. Writes the file's
/// modification time and that of bracelet's last write (Unix seconds).
int bracelet_written_since(const char *path, int64_t *file_seconds, int64_t *bracelet_seconds);

/// Registers the VFS (once per process; later calls do nothing). Returns an SQLite result code.
int bracelet_checksum_vfs_register(void);

/// The checksum of one page of `size` bytes, as stored in its last 8 bytes (little-endian).
uint64_t bracelet_page_checksum(const unsigned char *page, int size);

/// What the reserved bytes of one page of `size` bytes, as stored in the file, say (BRACELET_PAGE_*).
int bracelet_page_state(const unsigned char *page, int size);

/// The last page of a database file that failed its checksum on this thread (1-based); 0 when none
/// failed since bracelet_checksum_clear_failure.
int64_t bracelet_checksum_last_failure(void);

/// Forgets the last failure of this thread (bracelet_checksum_last_failure returns 0 until the next).
void bracelet_checksum_clear_failure(void);

/// Verifies every page of the database file at `path` (not its WAL) by reading it directly.
/// Writes up to `capacity` damaged page numbers into `damaged`, the page count into `pages`, the
/// unsealed pages into `unsealed` (when not NULL), and returns how many pages are damaged (possibly
/// more than `capacity`); -1 when the file cannot be read, -2 when its header is not an SQLite
/// header with checksums (no 8 reserved bytes). Pages of zeros only (BRACELET_PAGE_EMPTY) are
/// counted into `zeroed_count` and the first `zeroed_capacity` listed in `zeroed` (when not NULL):
/// free pages another program copied, or pages in use that lost their content, which only the
/// b-trees can tell apart.
int64_t bracelet_checksum_scan(const char *path, int64_t *damaged, int64_t capacity, int64_t *pages, BraceletUnsealed *unsealed,
                               int64_t *zeroed, int64_t zeroed_capacity, int64_t *zeroed_count);
