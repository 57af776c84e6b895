/* indirect_call.c -- MUST BE REJECTED at compile time.
 *
 * A marker is reachable through a function whose address is taken and that
 * is called indirectly (through a function pointer). The pass cannot
 * rebuild such a chain on restart (it cannot know which function the call
 * goes to without the pointer), so `dao cc` must fail with a diagnostic
 * naming file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <stdio.h>
#include "dao.h"

static double step_a(double x) {
    dao_potential_checkpoint(); /* dao-expect-error */
    return x * 0.5 + 1.0;
}

static double step_b(double x) {
    return x * 0.25 + 2.0;
}

int main(int argc, char **argv) {
    (void)argv;
    /* volatile: -O2 must not turn the indirect call back into direct ones */
    double (*volatile step)(double) = argc > 1 ? step_b : step_a; /* dao-expect-error */
    double x = 1.0;
    for (int i = 0; i < 100; i++)
        x = step(x); /* dao-expect-error */
    printf("%a\n", x);
    return 0;
}
