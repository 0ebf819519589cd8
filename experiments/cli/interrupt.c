/* SIGINT/SIGTERM (README "Exit statuses and partial files").
 *
 * A program that logs runs (pbd-run) installs pbd_interrupt_install: the handler only
 * records the signal (async-signal-safe) and the solver core sees it through the flag
 * registered with pbd_set_stop_flag, so the step in flight is abandoned within one
 * iteration (or one Newton iteration); the run keeps its finished steps as a partial file
 * and the program exits with 128 + signal.
 *
 * A program that only writes a file at the end (pbd-meshgen, pbd-report, pbd-bench,
 * pbd-gradcheck) installs pbd_interrupt_install_cleanup: the handler unlinks the temporary
 * files being written (pbd_atomic_unlink_all: unlink is async-signal-safe, so this is right
 * even when the signal lands in the middle of a write) and dies of the signal.
 *
 * In either mode a second signal removes the temporary files and gets the default action:
 * a user can always stop a stuck program. */
#include "pbd_cli.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;
static volatile sig_atomic_t die_at_once;

static void die(int sig)
{
    pbd_atomic_unlink_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_signal(int sig)
{
    if (received || die_at_once) die(sig);
    received = sig;
}

static void install(int cleanup)
{
    die_at_once = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART; /* HDF5's writes are not cut short */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!cleanup) pbd_set_stop_flag(&received);
}

void pbd_interrupt_install(void) { install(0); }
void pbd_interrupt_install_cleanup(void) { install(1); }

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
