#ifndef BACKPLANE_CIMAGECODECS_SHIM_H
#define BACKPLANE_CIMAGECODECS_SHIM_H
// libjpeg-turbo's TurboJPEG API and libpng's simplified API: neither needs setjmp from the caller.
#include <turbojpeg.h>
#include <png.h>
#endif
