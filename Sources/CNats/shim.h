#ifndef GATHER_CNATS_SHIM_H
#define GATHER_CNATS_SHIM_H
// libnats (Debian's libnats-dev 3.4.1), used by the venue's publisher and the relay's follower.
#include <nats/nats.h>
#endif
