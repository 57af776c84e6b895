/* setjmp_marker.c -- MUST BE REJECTED at compile time.
 *
 * A marker in a function that calls setjmp: a longjmp after a restart would
 * jump to a context saved by another process, and the frame's registers at
 * the setjmp cannot be restored. `dao cc` must fail with a diagnostic naming
 * file:line and mentioning dao.
 *
 * The harness accepts a diagnostic naming any line marked `dao-expect-error`.
 */
#include <setjmp.h>
#include <stdio.h>
#include "dao.h"

static jmp_buf env;

static void maybe_fail(int i) {
    if (i == 57)
        longjmp(env, 1);
}

int main(void) {
    volatile int i = 0;
    if (setjmp(env) != 0) { /* dao-expect-error */
        printf("recovered at %d\n", i);
        return 0;
    }
    for (i = 0; i < 100; i++) {
        dao_potential_checkpoint(); /* dao-expect-error */
        maybe_fail(i);
    }
    return 0;
}
