/* refuse.c -- what dao cannot put back after a restart, held across
 * markers (issue #31's audit). Argument 1 names the case: popen (a pipe to
 * a command), pipe (both ends of a pipe), socket (a socketpair), mmap (a
 * file mapped into memory), fork (a child process alive). Argument 2: the
 * number of steps; the thing is held for the first half and released
 * before the second.
 *
 * Invariant: while the thing is held every candidate is refused with a
 * warning naming it (never a crash or a wrong restart); once it is
 * released checkpoints are taken again; the output equals an
 * uninterrupted run's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dao.h"

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "pipe";
    long steps = argc > 2 ? atol(argv[2]) : 40;
    FILE *p = 0;
    int fds[2] = {-1, -1};
    void *map = 0;
    pid_t child = 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/dao-refuse-%d", (int)getpid());
    if (!strcmp(what, "popen")) {
        p = popen("cat > /dev/null", "w");
    } else if (!strcmp(what, "pipe")) {
        if (pipe(fds))
            return 1;
    } else if (!strcmp(what, "socket")) {
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
            return 1;
    } else if (!strcmp(what, "mmap")) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (ftruncate(fd, 4096))
            return 1;
        map = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    } else if (!strcmp(what, "fork")) {
        child = fork();
        if (child == 0) {
            pause();
            _exit(0);
        }
    }
    double s = 0;
    for (long i = 0; i < steps; i++) {
        dao_potential_checkpoint();
        s = s * 0.5 + (double)(i % 7);
        if (p)
            fprintf(p, "%ld\n", i);
        if (fds[1] >= 0 && write(fds[1], &s, sizeof s) == sizeof s) {
            double back;
            if (read(fds[0], &back, sizeof back) != sizeof back || back != s)
                printf("pipe lost data at %ld\n", i);
        }
        if (map)
            ((double *)map)[i % 512] = s;
        if (i == steps / 2) {
            if (p)
                pclose(p), p = 0;
            if (fds[0] >= 0)
                close(fds[0]), close(fds[1]), fds[0] = fds[1] = -1;
            if (map)
                munmap(map, 4096), map = 0, unlink(path);
            if (child)
                kill(child, SIGTERM), waitpid(child, 0, 0), child = 0;
        }
        for (volatile long w = 0; w < 200000; w++)
            ;
    }
    printf("%s: s %.6f\n", what, s);
    return 0;
}
