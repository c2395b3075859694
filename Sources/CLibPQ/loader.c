// The libpq functions bracelet calls, each forwarding to libpq.so.5 opened at the first call
// (include/CLibPQ.h says why). Every entry point of the fleet code calls bracelet_libpq_load()
// first and refuses with its message when it fails, so a forwarder never runs without libpq.
#include "CLibPQ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// One pointer per function, filled once by load().
#define LIBPQ_FUNCTIONS(X) \
    X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQsetNoticeProcessor) \
    X(PQsetnonblocking) X(PQsendQueryParams) X(PQflush) X(PQconsumeInput) X(PQclear) X(PQisBusy) \
    X(PQgetResult) X(PQresultStatus) X(PQnfields) X(PQntuples) X(PQgetisnull) X(PQgetvalue) \
    X(PQcmdTuples) X(PQsocket) X(PQresultErrorField) X(PQescapeLiteral) X(PQescapeIdentifier) \
    X(PQfreemem) X(PQencryptPasswordConn) X(PQconninfoParse) X(PQconninfoFree)

#define LIBPQ_POINTER(name) static __typeof__(&name) p_##name;
LIBPQ_FUNCTIONS(LIBPQ_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

static void load(void) {
    // RTLD_LOCAL: libpq's symbols stay out of the global scope (its own calls bind to itself).
    void *handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why ? why : "libpq.so.5 not found");
        return;
    }
#define LIBPQ_RESOLVE(name) \
    if (!(p_##name = (__typeof__(&name))dlsym(handle, #name))) { \
        snprintf(failure, sizeof failure, "libpq.so.5 has no %s (a libpq older than PostgreSQL 10)", #name); \
        return; \
    }
    LIBPQ_FUNCTIONS(LIBPQ_RESOLVE)
    loaded = 1;
}

int bracelet_libpq_load(const char **error) {
    pthread_once(&once, load);
    if (!loaded && error) *error = failure;
    return loaded;
}

// A forwarder called without libpq is a bug in the caller (it skipped bracelet_libpq_load()).
static void require(void) {
    if (bracelet_libpq_load(NULL)) return;
    fprintf(stderr, "bracelet: libpq is needed and could not be loaded: %s\n", failure);
    abort();
}

PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    require(); return p_PQconnectdbParams(keywords, values, expand_dbname);
}
ConnStatusType PQstatus(const PGconn *conn) { require(); return p_PQstatus(conn); }
char *PQerrorMessage(const PGconn *conn) { require(); return p_PQerrorMessage(conn); }
void PQfinish(PGconn *conn) { require(); p_PQfinish(conn); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    require(); return p_PQsetNoticeProcessor(conn, proc, arg);
}
int PQsetnonblocking(PGconn *conn, int arg) { require(); return p_PQsetnonblocking(conn, arg); }
int PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                      const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    require(); return p_PQsendQueryParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
int PQflush(PGconn *conn) { require(); return p_PQflush(conn); }
int PQconsumeInput(PGconn *conn) { require(); return p_PQconsumeInput(conn); }
void PQclear(PGresult *res) { require(); p_PQclear(res); }
int PQisBusy(PGconn *conn) { require(); return p_PQisBusy(conn); }
PGresult *PQgetResult(PGconn *conn) { require(); return p_PQgetResult(conn); }
ExecStatusType PQresultStatus(const PGresult *res) { require(); return p_PQresultStatus(res); }
int PQnfields(const PGresult *res) { require(); return p_PQnfields(res); }
int PQntuples(const PGresult *res) { require(); return p_PQntuples(res); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { require(); return p_PQgetisnull(res, tup_num, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { require(); return p_PQgetvalue(res, tup_num, field_num); }
char *PQcmdTuples(PGresult *res) { require(); return p_PQcmdTuples(res); }
int PQsocket(const PGconn *conn) { require(); return p_PQsocket(conn); }
char *PQresultErrorField(const PGresult *res, int fieldcode) { require(); return p_PQresultErrorField(res, fieldcode); }
char *PQescapeLiteral(PGconn *conn, const char *str, size_t len) { require(); return p_PQescapeLiteral(conn, str, len); }
char *PQescapeIdentifier(PGconn *conn, const char *str, size_t len) { require(); return p_PQescapeIdentifier(conn, str, len); }
void PQfreemem(void *ptr) { require(); p_PQfreemem(ptr); }
char *PQencryptPasswordConn(PGconn *conn, const char *passwd, const char *user, const char *algorithm) {
    require(); return p_PQencryptPasswordConn(conn, passwd, user, algorithm);
}
PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) { require(); return p_PQconninfoParse(conninfo, errmsg); }
void PQconninfoFree(PQconninfoOption *connOptions) { require(); p_PQconninfoFree(connOptions); }
