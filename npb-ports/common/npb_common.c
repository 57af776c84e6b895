/* npb_common.c -- timer and report printing for the dao NPB ports. */
#include <stdio.h>
#include <time.h>
#include "npb_common.h"

double npb_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

void npb_report(const char *name, char cls, long n1, long n2, long n3,
                int niter, double seconds, double mops, const char *optype,
                int verified, int nthreads)
{
    char size[64];
    printf("\n %s Benchmark Completed.\n", name);
    printf(" Class           =                        %c\n", cls);
    if (n2 == 0 && n3 == 0)
        snprintf(size, sizeof size, "%ld", n1);
    else
        snprintf(size, sizeof size, "%ldx%ldx%ld", n1, n2, n3);
    printf(" Size            =          %15s\n", size);
    printf(" Iterations      =          %15d\n", niter);
    printf(" Time in seconds =          %15.3f\n", seconds);
    printf(" Total threads   =          %15d\n", nthreads);
    printf(" Mop/s total     =          %15.2f\n", mops);
    printf(" Mop/s/thread    =          %15.2f\n", mops / (double)nthreads);
    printf(" Operation type  = %24s\n", optype);
    printf(" Verification    =          %15s\n",
           verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    printf(" Version         =          %15s\n", "3.x-dao");
}
