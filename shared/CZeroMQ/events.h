#ifndef BACKPLANE_CLINUXEVENTS_H
#define BACKPLANE_CLINUXEVENTS_H
// What ZMTPRouter needs beyond the Glibc module: epoll and accept4. Kept apart from
// shim.h, whose _GNU_SOURCE would give these headers' types definitions that clash with the
// Glibc module's.
#include <sys/epoll.h>

/// accept4 is a GNU extension that <sys/socket.h> declares only with _GNU_SOURCE.
struct sockaddr;
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);

/// Accepts a connection; `flags` as for accept4 (SOCK_NONBLOCK, SOCK_CLOEXEC).
static inline int backplane_accept(int listener, int flags) {
    return accept4(listener, (struct sockaddr *)0, (unsigned int *)0, flags);
}
#endif
