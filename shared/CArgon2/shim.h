#ifndef BACKPLANE_CARGON2_SHIM_H
#define BACKPLANE_CARGON2_SHIM_H
#include <argon2.h>
#endif
