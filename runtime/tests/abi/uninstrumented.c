/* Calls the markers without the pass: each must warn once and do nothing. */
#include <stdio.h>
#include "dao.h"
int main(void) {
    for (int i = 0; i < 3; i++)
        dao_potential_checkpoint();
    puts("done");
    return 0;
}
