/* dynamic_c/work.c -- the other file of dynamic_c (see main.c): weight()
 * reaches a marker inside main.c's dynamic loop with -DMARKER_IN_LOOP,
 * progress() one in the region's `master` block. Neither is ever a
 * checkpoint. */
#include "dao.h"

double weight(int i, int step) {
#ifdef MARKER_IN_LOOP
    if (i % 512 == 0)
        dao_potential_checkpoint();
#endif
    return (double)((i * 7 + step * 3) % 11) / 8.0;
}

void progress(int step) {
    if (step >= 0)
        dao_potential_checkpoint();
}
