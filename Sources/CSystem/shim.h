#ifndef CSYSTEM_SHIM_H
#define CSYSTEM_SHIM_H
/* Linux calls Swift's Glibc module does not import: epoll, eventfd, accept4, sendfile. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

/* accept4 is a GNU extension hidden without _GNU_SOURCE; a wrapper avoids redefining feature macros. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int csystem_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}
#endif
