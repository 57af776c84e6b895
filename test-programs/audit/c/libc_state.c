/* libc_state.c -- state the C library keeps for the program, across
 * checkpoints (issue #31's audit).
 *
 * Exercises: rand() after srand(), random() after srandom(), drand48()
 * after srand48(); strtok() walking one line across markers; a getline()
 * buffer allocated by libc and reused across markers; setenv/putenv/
 * unsetenv before the first checkpoint, read with getenv after; a SIGUSR1
 * handler installed with sigaction and one with signal() before the first
 * checkpoint, raised after; SIGUSR2 blocked with sigprocmask before the
 * first checkpoint, checked after; an atexit handler. Arguments: the
 * number of steps, and a path for the text file getline reads.
 *
 * Invariant: after a restart the generators continue their sequences, the
 * tokenizer its line, the environment, handlers and mask are those of the
 * checkpointed run, so the output equals an uninterrupted run's.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dao.h"

static volatile sig_atomic_t usr1, usr2_seen;
static void on_usr1(int s) { (void)s; usr1 += 3; }
static void on_alarm_like(int s) { (void)s; usr1 += 100; }
static void bye(void) { printf("atexit: usr1 %d\n", (int)usr1); }

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 40;
    srand(2024);
    srandom(77);
    srand48(99);
    setenv("DAO_AUDIT_A", "alpha", 1);
    static char kv[] = "DAO_AUDIT_B=beta";
    putenv(kv);
    setenv("DAO_AUDIT_C", "gone", 1);
    unsetenv("DAO_AUDIT_C");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, 0);
    signal(SIGURG, on_alarm_like);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR2);
    sigprocmask(SIG_BLOCK, &block, 0);
    atexit(bye);
    const char *path = argc > 2 ? argv[2] : "libc_state.txt";
    FILE *text = fopen(path, "w");
    for (long i = 0; i < steps; i++)
        fprintf(text, "line %ld: %ld %ld %ld\n", i, i * 3, i * 5, i * 7);
    fclose(text);
    text = fopen(path, "r");
    static char sentence[4096];
    for (int i = 0; i < 200; i++)
        strcat(sentence, i % 3 ? "tok " : "word,");
    char *tok = strtok(sentence, " ,");
    char *line = 0;
    size_t cap = 0;
    unsigned long long h = 0;
    for (long i = 0; i < steps; i++) {
        dao_potential_checkpoint();
        int r = rand();
        long q = random();
        double d = drand48();
        h = h * 31 + (unsigned)r + (unsigned long long)q + (unsigned long long)(d * 1e9);
        if (tok) {
            h = h * 7 + strlen(tok);
            tok = strtok(0, " ,");
        }
        if (getline(&line, &cap, text) > 0)
            h = h * 13 + strlen(line) + (unsigned char)line[5];
        const char *a = getenv("DAO_AUDIT_A"), *b = getenv("DAO_AUDIT_B"), *c = getenv("DAO_AUDIT_C");
        h = h * 3 + (a ? strlen(a) : 99) + (b ? strlen(b) * 10 : 990) + (c ? 5000 : 0);
        if (i % 5 == 4) {
            raise(SIGUSR1);
            raise(SIGURG);
        }
        sigset_t now;
        sigprocmask(SIG_BLOCK, 0, &now);
        usr2_seen += sigismember(&now, SIGUSR2);
        if (i % 10 == 9)
            printf("step %ld h %016llx usr1 %d blocked %d\n", i, h, (int)usr1, (int)usr2_seen);
        for (volatile long w = 0; w < 200000; w++)
            ;
    }
    free(line);
    printf("h %016llx\n", h);
    return 0;
}
