/* io_streams.c -- a sequential program that keeps its files open.
 *
 * Exercises (issue #31): an input file read line by line with fgets across
 * checkpoints; results written with fprintf to a file opened "w"; a log
 * opened "a"; binary records written with write(2) on a descriptor from
 * open(2), and a header rewritten in place with pwrite; a file opened "r+"
 * and updated in place with fseek; a snapshot file closed and opened again
 * every 8 steps (between checkpoints; created only after the first
 * checkpoints, in append mode: a restart must remove or cut back what the
 * crashed run appended after its checkpoint); a dup'ed descriptor. Arguments: the
 * directory for the files (made by the caller), the number of steps, and
 * the bytes of padding after each binary record (default 0; 100000 makes
 * records.bin longer than the 1 MiB a checkpoint saves whole by its 15th
 * step).
 *
 * Invariant: the program's FILE pointers and descriptors stay valid after a
 * restart, every file the program wrote is cut back to its length at the
 * checkpoint and continued from its position there, and the input is read
 * on from where the checkpoint left it, so every file ends byte for byte
 * as in an uninterrupted run. The end of the run prints each file's length
 * and FNV-1a digest, so the output comparison covers the files.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dao.h"

static char dir[512];

static const char *at(const char *name) {
    static char buf[4][640];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void digest(const char *name) {
    FILE *f = fopen(at(name), "rb");
    unsigned long long h = 1469598103934665603ULL;
    long n = 0;
    int c;
    while (f && (c = fgetc(f)) != EOF) {
        h = (h ^ (unsigned char)c) * 1099511628211ULL;
        n++;
    }
    if (f)
        fclose(f);
    printf("%-12s %6ld bytes fnv %016llx\n", name, n, h);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    long steps = argc > 2 ? atol(argv[2]) : 60;
    long pad = argc > 3 ? atol(argv[3]) : 0;
    char *padding = calloc(pad > 0 ? pad : 1, 1);
    /* the input, and a fresh log (append mode below) */
    FILE *gen = fopen(at("input.txt"), "w");
    for (long i = 0; i < steps; i++)
        fprintf(gen, "%ld.%02ld value\n", i * 7 % 13, i % 100);
    fclose(gen);
    fclose(fopen(at("run.log"), "w"));
    remove(at("snapshot.txt"));
    FILE *table = fopen(at("table.txt"), "w");
    for (int i = 0; i < 8; i++)
        fprintf(table, "slot%d %08d\n", i, 0);
    fclose(table);

    FILE *in = fopen(at("input.txt"), "r");
    FILE *out = fopen(at("result.txt"), "w");
    FILE *log = fopen(at("run.log"), "a");
    FILE *tab = fopen(at("table.txt"), "r+");
    int bin = open(at("records.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int bin2 = dup(bin);
    long header = 0;
    pwrite(bin, &header, sizeof header, 0);
    lseek(bin, sizeof header, SEEK_SET);
    char line[256];
    long k = 0;
    double acc = 0;
    while (fgets(line, sizeof line, in)) {
        dao_potential_checkpoint();
        double v = atof(line);
        acc = acc * 0.5 + v * 1.5;
        fprintf(out, "%ld %.6f %.6f\n", k, v, acc);
        fprintf(log, "step %ld\n", k);
        write(k % 2 ? bin2 : bin, &acc, sizeof acc);
        if (pad > 0) {
            memset(padding, (int)(k & 0x7f), pad);
            write(bin, padding, pad);
        }
        header = k + 1;
        pwrite(bin, &header, sizeof header, 0);
        /* update slot k % 8 in place */
        fseek(tab, (long)(k % 8) * 15, SEEK_SET);
        fprintf(tab, "slot%ld %08ld\n", k % 8, (long)(acc * 1000) % 100000000);
        if (k % 8 == 7) {
            FILE *snap = fopen(at("snapshot.txt"), "a");
            fprintf(snap, "snapshot at %ld: %.6f\n", k, acc);
            fclose(snap);
        }
        for (volatile long w = 0; w < 300000; w++)
            ;
        k++;
    }
    fclose(in);
    fclose(out);
    fclose(log);
    fclose(tab);
    close(bin2);
    close(bin);
    printf("steps %ld acc %.6f\n", k, acc);
    digest("result.txt");
    digest("run.log");
    digest("records.bin");
    digest("table.txt");
    digest("snapshot.txt");
    return 0;
}
