// A VFS shim over the default SQLite VFS that keeps an 8-byte checksum in the reserved bytes at the
// end of every page of the main database file: computed when a page is written to that file,
// verified when a whole page is read from it.
//
// Why: PRAGMA quick_check sees only the structure of b-tree pages; a changed value inside a
// well-formed page passes it. With a checksum per page, a page of the database file that changed
// on disk is found the moment it is read, and quick_check (which reads every page in use) finds it
// anywhere, also in rows no query of this run reads.
//
// The write-ahead log is never touched, neither written nor verified: SQLite computes each WAL
// frame's own checksum over the page before it hands the frame to xWrite, so changing the page on
// its way to the WAL makes the frame on disk disagree with its frame checksum, and after a crash
// WAL recovery stops at the first such frame and drops every transaction committed after the last
// checkpoint. SQLite's frame checksums already cover the WAL at recovery. Pages reach the database
// file only through xWrite of the main database (a checkpoint copying frames, or a write without a
// WAL), so every page there gets its checksum on the way; the reserved bytes of a page in the WAL
// keep whatever the page held before (SQLite never reads them), which is harmless.
//
// Rules:
// - Only the main database file (SQLITE_OPEN_MAIN_DB: also an attached file, such as the target of
//   VACUUM INTO) is wrapped; the WAL, journals and temporary files go straight to the default VFS.
// - The flags follow the file's header: whenever the first 100 or more bytes at offset 0 are read or
//   written, the page size is taken from it and checksums are on exactly when it says 8 reserved
//   bytes. SQLite never lowers the reserve, so once on, writing the checksum overwrites no data; a
//   file without the reserve (an older database before its conversion) passes through unchanged.
// - A checkpoint first reads the header of the database file again: a connection whose last header
//   was an older file's (no reserve; it read page 1 from the WAL since, where another connection's
//   conversion put it) would otherwise copy pages of the converted file without their checksums.
//   If page 1 is itself among the pages copied, it is the first one written (checkpoints go in page
//   order), and the rule above applies to it.
// - Only a whole page at a page boundary is verified or given its checksum. The 100-byte header
//   read at open and the 16-byte change-counter read are parts of page 1, which is verified as a
//   whole when SQLite reads it. SQLite writes the database file in whole pages; a partial write
//   would leave the old checksum, so the page then reads as damaged: never silently accepted.
// - No memory mapping: the methods are version 2 (no xFetch), and sub-page reads are not offered,
//   so every page comes through xRead and its verification.
// - A page whose checksum does not match fails the read with SQLITE_IOERR_DATA; the page number is
//   kept per thread for the error message.
//
// Pages another SQLite program wrote. The file stays an ordinary SQLite database, and a program
// without this shim (the sqlite3 shell) copies pages into it without checksums: a checkpoint it runs
// when it closes last copies the frames bracelet left in the WAL, and its own writes reach the file
// the same way. To tell those pages from damage, the reserved bytes say where a page image has been:
// - A page read from the file with a valid checksum is handed to SQLite with the marker HELD in its
//   reserved bytes (SQLite never reads them; they are free for VFS use). A page bracelet changes and
//   commits keeps HELD in the WAL, and a new page has zeros there. So a page copied into the file by
//   another program's checkpoint carries HELD or zeros, never a checksum that fails.
// - A page another program read from the file carries the checksum of what it read. If it changes
//   the page, the checksum no longer matches: when bracelet's checkpoint copies such a page, it
//   writes it with the marker OUTSIDE instead of a checksum (a write from outside, not yet verified).
// - A page of zeros only is a free page (SQLite, built with SECURE_DELETE as Debian's is, zeroes a
//   page it frees, reserved bytes included) that another program copied: it needs no checksum, and
//   reads succeed. Were it a page in use, it lost its content (a zeroed disk block, a write that
//   never reached the disk): SQLite's structure check finds that where a b-tree page belongs, but
//   not in an overflow page, so the store's page scan places every page of zeros in the b-trees
//   and calls one in use damage (PageChecksums.zeroedInUse), never an unsealed copy.
// - Reading a page whose reserved bytes are HELD, OUTSIDE or zeros succeeds: it is an unsealed page,
//   counted per file (SQLITE_FCNTL for BRACELET_FCNTL_UNSEALED) and handed on with OUTSIDE, so that
//   it stays unsealed if bracelet changes and writes it. The store verifies unsealed pages (SQLite's
//   integrity check, the row checks and content hashes) before it rewrites them with checksums.
// - Anything else that fails its checksum is damage, as above: a change made on disk, or by a program
//   that wrote the page without SQLite's log while no bracelet process had the file open.
#include "page_checksum.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#ifndef SQLITE_IOCAP_SUBPAGE_READ
#define SQLITE_IOCAP_SUBPAGE_READ 0x00008000
#endif

typedef struct ChecksumFile ChecksumFile;
struct ChecksumFile {
    sqlite3_file base;        // must be first: SQLite sees this struct as an sqlite3_file
    sqlite3_file *real;       // the underlying VFS's file, allocated right after this struct
    int enabled;              // the header says 8 reserved bytes: compute on write, verify on read
    int page_size;            // from the header; 0 until seen
    const char *name;         // the file's path (SQLite keeps it valid until xClose)
    unsigned char *scratch;   // one page, for writing a page with its checksum
    BraceletUnsealed unsealed; // unsealed pages read from or written to the file since the last reset
};

static sqlite3_vfs checksum_vfs;
static sqlite3_vfs *real_vfs;
static _Thread_local int64_t last_failure;

static const char magic[16] = "SQLite format 3";

/// In the reserved bytes of a page SQLite holds that was read from the file with a valid checksum.
static const unsigned char held_marker[8] = {'b', 'r', 'c', 'H', 'E', 'L', 'D', 0x01};
/// In the reserved bytes of a page written from outside bracelet, not verified yet.
static const unsigned char outside_marker[8] = {'b', 'r', 'c', 'O', 'U', 'T', 'S', 0x01};
static const unsigned char no_marker[8] = {0};

uint64_t bracelet_page_checksum(const unsigned char *page, int size) {
    // Two running sums over little-endian 32-bit words (a Fletcher-style sum modulo 2^32), started
    // from non-zero values so that an all-zero page does not match an all-zero checksum.
    uint32_t a = 0x9E3779B9u, b = 0x7F4A7C15u;
    int words = (size - BRACELET_CHECKSUM_RESERVE) / 4;
    for (int i = 0; i < words; i++) {
        const unsigned char *p = page + 4 * i;
        uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        a += w;
        b += a;
    }
    return (uint64_t)a | (uint64_t)b << 32;
}

static void store_checksum(unsigned char *page, int size) {
    uint64_t sum = bracelet_page_checksum(page, size);
    for (int i = 0; i < 8; i++) page[size - 8 + i] = (unsigned char)(sum >> (8 * i));
}

static int checksum_matches(const unsigned char *page, int size) {
    uint64_t sum = bracelet_page_checksum(page, size), stored = 0;
    for (int i = 0; i < 8; i++) stored |= (uint64_t)page[size - 8 + i] << (8 * i);
    return sum == stored;
}

static int reserved_is(const unsigned char *page, int size, const unsigned char marker[8]) {
    return memcmp(page + size - 8, marker, 8) == 0;
}

static int all_zero(const unsigned char *page, int size) {
    return page[0] == 0 && memcmp(page, page + 1, (size_t)size - 1) == 0;
}

int bracelet_page_state(const unsigned char *page, int size) {
    if (checksum_matches(page, size)) return BRACELET_PAGE_SEALED;
    if (all_zero(page, size)) return BRACELET_PAGE_EMPTY;
    if (reserved_is(page, size, outside_marker)) return BRACELET_PAGE_OUTSIDE;
    if (reserved_is(page, size, held_marker) || reserved_is(page, size, no_marker)) return BRACELET_PAGE_COPIED;
    return BRACELET_PAGE_DAMAGED;
}

static void note_unsealed(ChecksumFile *file, sqlite3_int64 page, int state) {
    BraceletUnsealed *u = &file->unsealed;
    for (int64_t i = 0; i < u->listed; i++) {
        if (u->pages[i] == page) {
            if (state == BRACELET_PAGE_OUTSIDE) u->outside[i] = 1;
            return;
        }
    }
    if (u->listed < BRACELET_UNSEALED_LISTED) {
        u->pages[u->listed] = page;
        u->outside[u->listed] = state == BRACELET_PAGE_OUTSIDE;
        u->listed += 1;
    }
    u->count += 1;
}

/// Takes the page size and the reserve from a page-1 header read from or written to offset 0.
static void learn_header(ChecksumFile *file, const void *buffer, int amount, sqlite3_int64 offset) {
    if (offset != 0 || amount < 100 || memcmp(buffer, magic, 16) != 0) return;
    const unsigned char *header = buffer;
    int size = header[16] << 8 | header[17];
    if (size == 1) size = 65536;
    if (size < 512 || size > 65536 || (size & (size - 1)) != 0) return;
    file->page_size = size;
    file->enabled = header[20] == BRACELET_CHECKSUM_RESERVE;
}

/// Whether a read or write of `amount` bytes at `offset` is one whole page with a checksum.
static int is_checked_page(ChecksumFile *file, int amount, sqlite3_int64 offset) {
    return file->enabled && file->page_size != 0 && amount == file->page_size && offset % amount == 0;
}

static int checksum_close(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    free(file->scratch);
    file->scratch = NULL;
    return file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
}

static int checksum_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    ChecksumFile *file = (ChecksumFile *)f;
    int rc = file->real->pMethods->xRead(file->real, buffer, amount, offset);
    // A short read is past the end of the file (zero-filled, not a stored page): nothing to verify.
    if (rc != SQLITE_OK) return rc;
    learn_header(file, buffer, amount, offset);
    if (!is_checked_page(file, amount, offset)) return SQLITE_OK;
    unsigned char *page = buffer;
    int state = bracelet_page_state(page, amount);
    switch (state) {
    case BRACELET_PAGE_SEALED:
        memcpy(page + amount - 8, held_marker, 8);
        return SQLITE_OK;
    case BRACELET_PAGE_EMPTY:
        return SQLITE_OK;
    case BRACELET_PAGE_COPIED:
    case BRACELET_PAGE_OUTSIDE:
        note_unsealed(file, offset / amount + 1, state);
        memcpy(page + amount - 8, outside_marker, 8);
        return SQLITE_OK;
    default:
        last_failure = offset / amount + 1;
        return SQLITE_IOERR_DATA;
    }
}

static int checksum_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    ChecksumFile *file = (ChecksumFile *)f;
    learn_header(file, buffer, amount, offset);
    if (!is_checked_page(file, amount, offset)) return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
    // A copy: the caller's buffer may be a page SQLite still holds (its cache, or a checkpoint's).
    if (!file->scratch) {
        file->scratch = malloc(65536);
        if (!file->scratch) return SQLITE_IOERR_NOMEM;
    }
    memcpy(file->scratch, buffer, (size_t)amount);
    // A page image bracelet's SQLite made (read through this shim, or new) gets its checksum; one
    // that already carries a valid checksum is unchanged; anything else was read and changed by
    // another program (or is an unsealed page not verified yet) and is written as such.
    if (reserved_is(file->scratch, amount, held_marker) || reserved_is(file->scratch, amount, no_marker)) {
        store_checksum(file->scratch, amount);
    } else if (!checksum_matches(file->scratch, amount)) {
        memcpy(file->scratch + amount - 8, outside_marker, 8);
        note_unsealed(file, offset / amount + 1, BRACELET_PAGE_OUTSIDE);
    }
    return file->real->pMethods->xWrite(file->real, file->scratch, amount, offset);
}

static int checksum_truncate(sqlite3_file *f, sqlite3_int64 size) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xTruncate(file->real, size);
}

/// The modification time of the file at `path` as the text kept in BRACELET_WRITTEN_XATTR.
static int modification_text(const char *path, char *text, size_t capacity, int64_t *seconds) {
    struct stat status;
    if (stat(path, &status) != 0) return -1;
    if (seconds) *seconds = (int64_t)status.st_mtim.tv_sec;
    return snprintf(text, capacity, "%lld.%09ld", (long long)status.st_mtim.tv_sec, (long)status.st_mtim.tv_nsec);
}

static int checksum_sync(sqlite3_file *f, int flags) {
    ChecksumFile *file = (ChecksumFile *)f;
    int rc = file->real->pMethods->xSync(file->real, flags);
    // Every write of bracelet's to the file is followed by a sync: the file's modification time now
    // is the time of bracelet's last write, which tells a later write by another program from a
    // change on disk that no program made.
    if (rc == SQLITE_OK && file->enabled && file->name) {
        char text[48];
        int length = modification_text(file->name, text, sizeof text, NULL);
        if (length > 0) setxattr(file->name, BRACELET_WRITTEN_XATTR, text, (size_t)length, 0);  // best effort
    }
    return rc;
}

int bracelet_written_since(const char *path, int64_t *file_seconds, int64_t *bracelet_seconds) {
    char now[48], recorded[48];
    int length = modification_text(path, now, sizeof now, file_seconds);
    ssize_t kept = getxattr(path, BRACELET_WRITTEN_XATTR, recorded, sizeof recorded - 1);
    if (length <= 0 || kept <= 0) return -1;
    recorded[kept] = 0;
    if (bracelet_seconds) *bracelet_seconds = strtoll(recorded, NULL, 10);
    return strcmp(now, recorded) != 0;
}

static int checksum_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int checksum_lock(sqlite3_file *f, int level) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}

static int checksum_unlock(sqlite3_file *f, int level) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int checksum_check_reserved_lock(sqlite3_file *f, int *out) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}

static int checksum_file_control(sqlite3_file *f, int op, void *arg) {
    ChecksumFile *file = (ChecksumFile *)f;
    if (op == BRACELET_FCNTL_UNSEALED) {
        if (arg) *(BraceletUnsealed *)arg = file->unsealed;
        memset(&file->unsealed, 0, sizeof file->unsealed);
        return SQLITE_OK;
    }
    if (op == SQLITE_FCNTL_CKPT_START) {
        unsigned char header[100];
        if (file->real->pMethods->xRead(file->real, header, sizeof header, 0) == SQLITE_OK) learn_header(file, header, sizeof header, 0);
    }
    return file->real->pMethods->xFileControl(file->real, op, arg);
}

static int checksum_sector_size(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int checksum_device_characteristics(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real) & ~SQLITE_IOCAP_SUBPAGE_READ;
}

static int checksum_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, out);
}

static int checksum_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xShmLock(file->real, offset, n, flags);
}

static void checksum_shm_barrier(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    file->real->pMethods->xShmBarrier(file->real);
}

static int checksum_shm_unmap(sqlite3_file *f, int delete_flag) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xShmUnmap(file->real, delete_flag);
}

// Version 2: no xFetch, so SQLite never reads pages of the database file through a memory map,
// which would bypass the verification in checksum_read (whatever PRAGMA mmap_size says).
static const sqlite3_io_methods checksum_methods = {
    2,
    checksum_close,
    checksum_read,
    checksum_write,
    checksum_truncate,
    checksum_sync,
    checksum_file_size,
    checksum_lock,
    checksum_unlock,
    checksum_check_reserved_lock,
    checksum_file_control,
    checksum_sector_size,
    checksum_device_characteristics,
    checksum_shm_map,
    checksum_shm_lock,
    checksum_shm_barrier,
    checksum_shm_unmap,
    NULL,
    NULL,
};

static int checksum_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    (void)vfs;
    // The WAL (SQLITE_OPEN_WAL), journals and temporary files are the default VFS's own files.
    if ((flags & SQLITE_OPEN_MAIN_DB) == 0) return real_vfs->xOpen(real_vfs, name, f, flags, out_flags);
    ChecksumFile *file = (ChecksumFile *)f;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)&file[1];
    file->name = name;
    int rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        // SQLite calls xClose only when pMethods is set; the real file cleans up after itself.
        file->base.pMethods = NULL;
        return rc;
    }
    file->base.pMethods = &checksum_methods;
    return SQLITE_OK;
}

static int forward_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int forward_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int forward_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}

static void *forward_dl_open(sqlite3_vfs *vfs, const char *path) {
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, path);
}

static void forward_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, out);
}

static void (*forward_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}

static void forward_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    real_vfs->xDlClose(real_vfs, handle);
}

static int forward_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, out);
}

static int forward_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}

static int forward_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, out);
}

static int forward_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}

static int forward_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static int register_result = SQLITE_OK;
static pthread_once_t register_once = PTHREAD_ONCE_INIT;

static void register_vfs(void) {
    /* Before SQLite initializes (the registration below does): no memory statistics. With them,
     * every allocation and free of every connection takes one process-wide mutex to count it, and
     * nothing in bracelet reads the counts. Refused harmlessly when SQLite is already initialized. */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs) {
        register_result = SQLITE_ERROR;
        return;
    }
    checksum_vfs.iVersion = 2;
    checksum_vfs.szOsFile = (int)sizeof(ChecksumFile) + real_vfs->szOsFile;
    checksum_vfs.mxPathname = real_vfs->mxPathname;
    checksum_vfs.zName = BRACELET_CHECKSUM_VFS;
    checksum_vfs.xOpen = checksum_open;
    checksum_vfs.xDelete = forward_delete;
    checksum_vfs.xAccess = forward_access;
    checksum_vfs.xFullPathname = forward_full_pathname;
    checksum_vfs.xDlOpen = forward_dl_open;
    checksum_vfs.xDlError = forward_dl_error;
    checksum_vfs.xDlSym = forward_dl_sym;
    checksum_vfs.xDlClose = forward_dl_close;
    checksum_vfs.xRandomness = forward_randomness;
    checksum_vfs.xSleep = forward_sleep;
    checksum_vfs.xCurrentTime = forward_current_time;
    checksum_vfs.xGetLastError = forward_get_last_error;
    checksum_vfs.xCurrentTimeInt64 = forward_current_time_int64;
    register_result = sqlite3_vfs_register(&checksum_vfs, 0);
}

int bracelet_checksum_vfs_register(void) {
    pthread_once(&register_once, register_vfs);
    return register_result;
}

int64_t bracelet_checksum_last_failure(void) {
    return last_failure;
}

void bracelet_checksum_clear_failure(void) {
    last_failure = 0;
}

int64_t bracelet_checksum_scan(const char *path, int64_t *damaged, int64_t capacity, int64_t *pages, BraceletUnsealed *unsealed,
                               int64_t *zeroed, int64_t zeroed_capacity, int64_t *zeroed_count) {
    FILE *stream = fopen(path, "rb");
    if (!stream) return -1;
    unsigned char header[100];
    if (fread(header, 1, 100, stream) != 100 || memcmp(header, magic, 16) != 0 || header[20] != BRACELET_CHECKSUM_RESERVE) {
        fclose(stream);
        return -2;
    }
    int size = header[16] << 8 | header[17];
    if (size == 1) size = 65536;
    if (size < 512 || (size & (size - 1)) != 0 || fseek(stream, 0, SEEK_SET) != 0) {
        fclose(stream);
        return -2;
    }
    unsigned char *page = malloc((size_t)size);
    if (!page) {
        fclose(stream);
        return -1;
    }
    // SQLite never writes the page holding the lock bytes at 1 GiB.
    int64_t count = 0, found = 0, lock_page = 1073741824 / size + 1;
    if (unsealed) memset(unsealed, 0, sizeof *unsealed);
    if (zeroed_count) *zeroed_count = 0;
    while (fread(page, 1, (size_t)size, stream) == (size_t)size) {
        count += 1;
        if (count == lock_page) continue;
        int state = bracelet_page_state(page, size);
        if (state == BRACELET_PAGE_DAMAGED) {
            if (found < capacity) damaged[found] = count;
            found += 1;
        } else if ((state == BRACELET_PAGE_COPIED || state == BRACELET_PAGE_OUTSIDE) && unsealed) {
            if (unsealed->listed < BRACELET_UNSEALED_LISTED) {
                unsealed->pages[unsealed->listed] = count;
                unsealed->outside[unsealed->listed] = state == BRACELET_PAGE_OUTSIDE;
                unsealed->listed += 1;
            }
            unsealed->count += 1;
        } else if (state == BRACELET_PAGE_EMPTY && zeroed_count) {
            if (zeroed && *zeroed_count < zeroed_capacity) zeroed[*zeroed_count] = count;
            *zeroed_count += 1;
        }
    }
    int failed = ferror(stream);
    free(page);
    fclose(stream);
    if (failed) return -1;
    if (pages) *pages = count;
    return found;
}
