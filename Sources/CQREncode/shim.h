#ifndef GATHER_CQRENCODE_SHIM_H
#define GATHER_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
