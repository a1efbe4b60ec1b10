#include <zmq.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <errno.h>
