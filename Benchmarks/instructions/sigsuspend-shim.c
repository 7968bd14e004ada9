// Valgrind 3.19 (Debian 12) rewrites the mask that sigsuspend(2) is given in place, and crashes
// when it is read-only, as libdispatch's is (dispatchMain parks the main thread in sigsuspend with
// a const mask). Preloaded under callgrind only (scripts/bench-instructions.sh): hands the kernel
// a writable copy.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
