/* SIGINT/SIGTERM during a logged run: the handler only records the signal (async-signal-
 * safe); the run checks between steps (pbd_h5log_step returns PBD_EINTR), keeps what it has
 * as a partial file and the program exits with 128 + signal. A second signal of the same
 * kind gets the default action (SA_RESETHAND): a user can always stop a stuck program. */
#include "pbd_cli.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

static void on_signal(int sig)
{
    received = sig;
}

void pbd_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND; /* HDF5's writes are not cut short */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int pbd_interrupt_signal(void) { return (int)received; }

const char *pbd_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

int pbd_exit_status(pbd_status st)
{
    switch (st) {
    case PBD_OK: return 0;
    case PBD_EINVAL: return 2;
    case PBD_EIO: return 3;
    case PBD_ENOMEM: return 4;
    case PBD_ENUMERIC: return 5;
    case PBD_EINTR: return 128 + (received ? (int)received : SIGTERM);
    case PBD_EINPUT: break;
    }
    return 1;
}
