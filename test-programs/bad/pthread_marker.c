/* pthread_marker.c -- a marker reached in a thread the program creates
 * with pthread_create (not an OpenMP team): must be REJECTED at compile
 * time (issue #31's audit). A restart rebuilds the main thread's call chain
 * and OpenMP teams, not threads the program made itself; the thread
 * function reaches the marker only through the pointer pthread_create
 * gets, an indirect call.
 */
#include <pthread.h>
#include "dao.h"

static long total;

static void *work(void *arg) {
    for (long i = 0; i < 100; i++) {
        dao_potential_checkpoint();
        total += i;
    }
    return arg;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, work, 0); /* dao-expect-error */
    pthread_join(t, 0);
    return total == 4950 ? 0 : 1;
}
