// A VFS shim over the default SQLite VFS that writes an 8-byte checksum into the reserved bytes at
// the end of every page of the main database and its WAL, and verifies it whenever a page is read.
//
// Why: PRAGMA quick_check sees only the structure of b-tree pages; a changed value inside a
// well-formed page passes it. With a checksum per page, any change to a page in use is found the
// moment the page is read, and quick_check (which reads every page in use) finds it anywhere.
//
// Rules:
// - Only the main database and its WAL are handled; journals and temp files pass through.
// - Verification follows the file: it is on while the page-1 header last read (at offset 0 of the
//   database, or a page image starting with the SQLite magic) says 8 reserved bytes; during the
//   migration that adds them it is off until BRACELET_CHECKSUMS_CONVERTED, since the old pages it
//   reads carry none.
// - Writing checksums turns on from a header read or written with 8 reserved bytes, or explicitly
//   through BRACELET_FCNTL_PAGE_CHECKSUMS (the migration writes pages before a page 1 saying so
//   reaches the file). Writing into a page without reserved bytes would destroy data, so nothing
//   else turns it on.
// - During a checkpoint the database pages are copied from WAL frames that already carry their
//   checksum (verified when read), so they are written as they are.
// - A page whose checksum does not match fails the read with SQLITE_IOERR_DATA; the page (or WAL
//   frame) number is kept per thread for the error message.
#include "page_checksum.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ChecksumFile ChecksumFile;
struct ChecksumFile {
    sqlite3_file base;        // must be first: SQLite sees this struct as an sqlite3_file
    sqlite3_file *real;       // the underlying VFS's file, allocated right after this struct
    ChecksumFile *database;   // for a WAL: its database file (whose flags it follows)
    int is_wal;
    int verify;               // pages carry checksums: verify on read
    int compute;              // write checksums into pages
    int compute_forced;       // compute was turned on explicitly: a header saying otherwise keeps it
    int verify_suspended;     // the file is being converted: old pages without checksums are read
    int in_checkpoint;
    int page_size;            // from the header; 0 until seen
    unsigned char *scratch;   // one page, for writing a page with its checksum
};

static sqlite3_vfs checksum_vfs;
static sqlite3_vfs *real_vfs;
static _Thread_local int64_t last_failure;
static _Thread_local int last_failure_in_wal;

static const char magic[16] = "SQLite format 3";

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

/// The database file whose flags `file` follows (itself, or a WAL's database).
static ChecksumFile *owner(ChecksumFile *file) {
    return file->is_wal && file->database ? file->database : file;
}

/// Reads the page size and reserve from a page-1 header and sets the flags from them. A header
/// read says what the pages read next carry; a header written says what the pages written next
/// must carry.
static void learn_header(ChecksumFile *file, const unsigned char *header, int written) {
    ChecksumFile *db = owner(file);
    int size = header[16] << 8 | header[17];
    if (size == 1) size = 65536;
    if (size >= 512 && size <= 65536 && (size & (size - 1)) == 0) db->page_size = size;
    int has_reserve = header[20] == BRACELET_CHECKSUM_RESERVE;
    if (!written && !db->verify_suspended) db->verify = has_reserve;
    db->compute = has_reserve || db->compute_forced;
}

static int is_header(const void *buffer, int amount) {
    return amount >= 100 && memcmp(buffer, magic, 16) == 0;
}

/// Whether a read or write of `amount` bytes at `offset` is one whole page of `file`.
static int is_page(ChecksumFile *file, int amount, sqlite3_int64 offset) {
    int size = owner(file)->page_size;
    if (size == 0 || amount != size) return 0;
    return file->is_wal || offset % size == 0;
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
    if (rc != SQLITE_OK) return rc;
    if ((offset == 0 && !file->is_wal && is_header(buffer, amount)) || (amount >= 512 && memcmp(buffer, magic, 16) == 0)) {
        learn_header(file, buffer, 0);
    }
    ChecksumFile *db = owner(file);
    if (db->verify && is_page(file, amount, offset) && !checksum_matches(buffer, amount)) {
        if (file->is_wal) {
            last_failure = (offset - 32) / (amount + 24) + 1;
            last_failure_in_wal = 1;
        } else {
            last_failure = offset / amount + 1;
            last_failure_in_wal = 0;
        }
        return SQLITE_IOERR_DATA;
    }
    return SQLITE_OK;
}

static int checksum_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    ChecksumFile *file = (ChecksumFile *)f;
    if ((offset == 0 && !file->is_wal && is_header(buffer, amount)) || (amount >= 512 && memcmp(buffer, magic, 16) == 0)) {
        learn_header(file, buffer, 1);
    }
    ChecksumFile *db = owner(file);
    if (db->compute && !db->in_checkpoint && is_page(file, amount, offset)) {
        if (!file->scratch) {
            file->scratch = malloc(65536);
            if (!file->scratch) return SQLITE_IOERR_NOMEM;
        }
        memcpy(file->scratch, buffer, amount);
        store_checksum(file->scratch, amount);
        return file->real->pMethods->xWrite(file->real, file->scratch, amount, offset);
    }
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int checksum_truncate(sqlite3_file *f, sqlite3_int64 size) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int checksum_sync(sqlite3_file *f, int flags) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xSync(file->real, flags);
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
    switch (op) {
    case BRACELET_FCNTL_PAGE_CHECKSUMS: {
        int *value = (int *)arg;
        switch (*value) {
        case BRACELET_CHECKSUMS_WRITE:
            file->compute = file->compute_forced = 1;
            if (file->page_size == 0) file->page_size = 4096;
            break;
        case BRACELET_CHECKSUMS_CONVERTING:
            file->compute = file->compute_forced = 1;
            file->verify = 0;
            file->verify_suspended = 1;
            break;
        case BRACELET_CHECKSUMS_CONVERTED:
            file->verify_suspended = 0;
            file->verify = 1;
            break;
        case BRACELET_CHECKSUMS_OFF:
            file->compute = file->compute_forced = file->verify = file->verify_suspended = 0;
            break;
        default:
            *value = file->verify;
            break;
        }
        return SQLITE_OK;
    }
    case SQLITE_FCNTL_CKPT_START:
        file->in_checkpoint = 1;
        break;
    case SQLITE_FCNTL_CKPT_DONE:
        file->in_checkpoint = 0;
        break;
    case SQLITE_FCNTL_PRAGMA: {
        // Reports the new page size to the shim when a pragma changes it on an empty file.
        char **args = (char **)arg;
        if (args[1] && sqlite3_stricmp(args[1], "page_size") == 0 && args[2]) {
            int size = atoi(args[2]);
            if (size >= 512 && size <= 65536 && (size & (size - 1)) == 0) file->page_size = size;
        }
        break;
    }
    default:
        break;
    }
    return file->real->pMethods->xFileControl(file->real, op, arg);
}

static int checksum_sector_size(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int checksum_device_characteristics(sqlite3_file *f) {
    ChecksumFile *file = (ChecksumFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
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

// Version 2: no xFetch, so SQLite never reads pages through a memory map, which would bypass the
// verification in checksum_read.
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
    if ((flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) == 0) {
        return real_vfs->xOpen(real_vfs, name, f, flags, out_flags);
    }
    ChecksumFile *file = (ChecksumFile *)f;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)&file[1];
    int rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        // SQLite calls xClose only when pMethods is set; the real file cleans up after itself.
        file->base.pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_WAL) {
        file->is_wal = 1;
        sqlite3_file *database = sqlite3_database_file_object(name);
        if (database && database->pMethods == &checksum_methods) file->database = (ChecksumFile *)database;
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

int64_t bracelet_checksum_last_failure(int *in_wal) {
    if (in_wal) *in_wal = last_failure_in_wal;
    return last_failure;
}

void bracelet_checksum_clear_failure(void) {
    last_failure = 0;
    last_failure_in_wal = 0;
}

int64_t bracelet_checksum_scan(const char *path, int64_t *damaged, int64_t capacity, int64_t *pages) {
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
    while (fread(page, 1, (size_t)size, stream) == (size_t)size) {
        count += 1;
        if (count != lock_page && !checksum_matches(page, size)) {
            if (found < capacity) damaged[found] = count;
            found += 1;
        }
    }
    int failed = ferror(stream);
    free(page);
    fclose(stream);
    if (failed) return -1;
    if (pages) *pages = count;
    return found;
}
