#ifndef GATHER_CPOSTGRES_SHIM_H
#define GATHER_CPOSTGRES_SHIM_H
// libpq (Debian's libpq-dev, PostgreSQL 15), used by the club's Store: synchronous calls on the
// Store's own threads and LISTEN/NOTIFY on a connection of its own.
#include <libpq-fe.h>
#endif
