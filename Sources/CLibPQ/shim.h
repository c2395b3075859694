// Imports libpq, PostgreSQL's C client library, into Swift.
#pragma once
#include <libpq-fe.h>
