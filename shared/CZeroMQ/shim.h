#ifndef BACKPLANE_CZEROMQ_SHIM_H
#define BACKPLANE_CZEROMQ_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <zmq.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <unistd.h>
#include <errno.h>

/// Names the calling thread (at most 15 characters are kept), for top -H and profilers.
static inline void backplane_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
#endif
