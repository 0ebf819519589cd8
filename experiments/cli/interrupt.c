/* SIGINT/SIGTERM/SIGHUP (README "Exit statuses and partial files").
 *
 * A program that logs runs (pbd-run) installs pbd_interrupt_install first thing after
 * parsing its command line, before any expensive set-up (a 1000² cloth takes seconds to
 * build). The handler records the signal (async-signal-safe) and the solver core sees it
 * through the flag registered with pbd_set_stop_flag, so the step in flight is abandoned
 * within one iteration (or one Newton iteration); the run keeps its finished steps as a
 * partial file and the program exits with 128 + signal.
 *
 * The grace timer: some work cannot look at the flag — a sparse factorisation (CHOLMOD,
 * UMFPACK have no interrupt callback), a scene being built. The first signal also arms a
 * one-shot timer (PBD_INTERRUPT_GRACE_SECONDS, SIGALRM). When it fires and the program has
 * not ended, the handler ends it at once with _exit(128 + signal) — unless the program is
 * inside a section that writes the run's HDF5 file (pbd_interrupt_busy: then the file is
 * half-written, the write is bounded, and the timer is re-armed). Outside those sections the
 * run's file on disk is exactly what its last H5Fflush left (the log flushes after every
 * write it makes: experiments/log/h5log.c), so the handler renames it, with rename(2)
 * (async-signal-safe), to <run>.partial.h5: a readable partial file holding every step
 * flushed before the signal (its attributes say complete = 0 and "not finished: the run was
 * killed …"). With no run file registered there is nothing to keep: the temporary files are
 * unlinked. Either way one line goes to stderr with write(2).
 *
 * No SA_RESTART: a blocking call (open(2) of a FIFO, a read from a pipe) returns EINTR
 * instead of swallowing the signal. Regular-file I/O is not interrupted by signals on Linux,
 * and HDF5's sec2 driver retries a read or write that returns EINTR.
 *
 * A program that only writes a file at the end (pbd-meshgen, pbd-report, pbd-bench,
 * pbd-gradcheck) installs pbd_interrupt_install_cleanup: the handler unlinks the temporary
 * files being written (pbd_atomic_unlink_all: unlink is async-signal-safe, so this is right
 * even when the signal lands in the middle of a write) and dies of the signal.
 *
 * In either mode a second signal gets the same end as the grace timer's at once (the
 * temporary files removed, the run's file renamed when it is not being written) and the
 * signal's default action: a user can always stop a stuck program. */
#include "pbd_cli.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t received;
static volatile sig_atomic_t die_at_once;
static volatile sig_atomic_t busy;       /* depth of pbd_interrupt_busy(1) sections */
static volatile sig_atomic_t file_set;   /* keep_from (and keep_to) hold a run's file */
static volatile sig_atomic_t keep_it;    /* 1: rename keep_from to keep_to; 0: unlink it */
static volatile sig_atomic_t waited;     /* grace periods of 0.1 s spent waiting for busy */
static char keep_from[4200], keep_to[4200];

static size_t text_len(const char *s)
{
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

static void say(const char *s) { (void)!write(STDERR_FILENO, s, text_len(s)); }

static const char *name_of(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
                                                                               : "a signal";
}

/* The end without the program's help (async-signal-safe only): the run's file renamed to
 * its partial name when it is not being written, the temporary files unlinked. */
static void end_now(int sig, const char *why)
{
    say("pbd: ");
    say(name_of(sig));
    say(why);
    if (file_set && !keep_it && unlink(keep_from) == 0) {
        say("; the run had not started: nothing kept");
    } else if (file_set && keep_it && !busy && rename(keep_from, keep_to) == 0) {
        say("; kept the steps flushed so far in ");
        say(keep_to);
    } else if (file_set) {
        say("; the run's file was being written: it stays as ");
        say(keep_from);
    } else {
        say("; nothing kept");
    }
    say("\n");
    file_set = 0;
    pbd_atomic_unlink_all();
}

static void arm(double seconds)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = (time_t)seconds;
    t.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    setitimer(ITIMER_REAL, &t, NULL);
}

static void on_grace(int alarm_sig)
{
    (void)alarm_sig;
    /* inside an HDF5 write: wait for it (bounded, and it looks at the flag after), except
     * for a file that holds no step yet (its header, e.g. a huge /scene): after 0.5 s more
     * that one is removed */
    if (busy && (keep_it || waited < 5)) {
        waited++;
        arm(0.1);
        return;
    }
    int sig = received ? (int)received : SIGTERM;
    const char *what = pbd_running(); /* a static text (solver/stop.c) */
    say("pbd: ");
    say(name_of(sig));
    say(": not stopped within the grace time: inside ");
    say(what ? what : "work that does not look at the stop flag");
    say("\n");
    end_now(sig, ": stopped at once");
    _exit(128 + sig);
}

static void on_signal(int sig)
{
    if (received || die_at_once) {
        if (!die_at_once) end_now(sig, " again: stopped at once");
        else pbd_atomic_unlink_all();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    received = sig;
    arm(PBD_INTERRUPT_GRACE_SECONDS);
}

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

static void install(int cleanup)
{
    die_at_once = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < sizeof handled / sizeof handled[0]; i++)
        sigaddset(&sa.sa_mask, handled[i]);
    sigaddset(&sa.sa_mask, SIGALRM);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking open(2) or read(2) sees EINTR */
    for (unsigned i = 0; i < sizeof handled / sizeof handled[0]; i++)
        sigaction(handled[i], &sa, NULL);
    if (!cleanup) {
        sa.sa_handler = on_grace;
        sigaction(SIGALRM, &sa, NULL);
        pbd_set_stop_flag(&received);
    }
}

void pbd_interrupt_install(void) { install(0); }
void pbd_interrupt_install_cleanup(void) { install(1); }

int pbd_interrupt_signal(void) { return (int)received; }

void pbd_interrupt_busy(int enter)
{
    busy += enter ? 1 : -1;
}

void pbd_interrupt_done(void)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    setitimer(ITIMER_REAL, &t, NULL);
}

void pbd_interrupt_keep_file(const char *writing, const char *partial_name)
{
    file_set = 0;
    atomic_signal_fence(memory_order_seq_cst);
    if (!writing) return;
    keep_it = partial_name != NULL;
    snprintf(keep_from, sizeof keep_from, "%s", writing);
    snprintf(keep_to, sizeof keep_to, "%s", partial_name ? partial_name : "");
    atomic_signal_fence(memory_order_seq_cst); /* the names are complete before… */
    file_set = 1;                              /* …the handler may read them */
}

const char *pbd_signal_name(int sig) { return name_of(sig); }

void pbd_report_status(const char *program, pbd_status st)
{
    if (st == PBD_OK) return;
    const char *msg = pbd_last_error(), *sig = received ? name_of((int)received) : NULL;
    if (st == PBD_EINTR && sig && !strstr(msg, sig))
        fprintf(stderr, "%s: interrupted by %s: %s\n", program, sig, msg);
    else
        fprintf(stderr, "%s: %s\n", program, msg);
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
