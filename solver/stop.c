/* Stop requests (pbd.h, pbd_set_stop_flag): the flag a program's signal handler sets, read
 * once per iteration by the sweeps, the step and the Newton iterations. */
#include "pbd.h"

static const volatile sig_atomic_t *stop_flag;

void pbd_set_stop_flag(const volatile sig_atomic_t *flag) { stop_flag = flag; }
int pbd_stop_requested(void) { return stop_flag && *stop_flag; }

static const char *volatile running;

const char *pbd_running_set(const char *what)
{
    const char *before = running;
    running = what;
    return before;
}
const char *pbd_running(void) { return running; }
