// libpq, PostgreSQL's C client library, opened at its first use instead of at every start.
//
// Only the fleet commands talk to PostgreSQL, but a library the executable is linked to is loaded
// (with everything it needs: Kerberos, LDAP, SASL) before any command runs. Here the functions
// bracelet calls are defined by forwarders (loader.c) that open libpq.so.5 with dlopen the first
// time; bracelet_libpq_load() opens it and says why it could not, so a command can refuse with a
// clear message before it calls anything else.
#pragma once
#include <postgresql/libpq-fe.h>

/// Opens libpq (once per process; later calls return the first result). Returns 1 when it is
/// loaded, 0 when not: then `*error` points to a static text saying why (the loader's message).
int bracelet_libpq_load(const char **error);
