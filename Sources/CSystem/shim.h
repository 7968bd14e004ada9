#ifndef CSYSTEM_SHIM_H
#define CSYSTEM_SHIM_H
/* Linux calls Swift's Glibc module does not import: epoll, eventfd, accept4, sendfile. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>

/* accept4 is a GNU extension hidden without _GNU_SOURCE. It is declared here without including
   <sys/socket.h>, whose declarations must stay with the Glibc module (socklen_t is unsigned int). */
struct sockaddr;
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);
static inline int csystem_accept4(int fd, void *address, unsigned int *length, int flags) {
    return accept4(fd, (struct sockaddr *)address, length, flags);
}
#endif
