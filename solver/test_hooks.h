/* Test hooks of the step (solver/step.c), never set by a normal run: not part of the public
 * header. The programs set them from their --test-fault flags (experiments/programs/pbd_run.c,
 * experiments/drivers/experiment.c), which the tests drive (tests/test_faults.c). */
#ifndef PBD_TEST_HOOKS_H
#define PBD_TEST_HOOKS_H

/* When > 0 (`--test-fault-step=N` of pbd-run), step number N of every world
 * (w->step_count + 1 == N) starts by giving its first free particle a NaN velocity, so that
 * the step's watchdog stops the run with PBD_ENUMERIC as a user's extreme parameters would
 * (tests of the partial result file). */
extern long pbd_test_fault_step;
/* With pbd_test_fault_step (`--test-fault=oom`): that step fails with PBD_ENOMEM instead, as
 * an allocation inside it would. */
extern int pbd_test_fault_oom;
/* With pbd_test_fault_step (`--test-fault=hang`): that step never ends and never looks at
 * the stop flag, as a stuck factorisation (a signal ends the program only through its grace
 * timer, experiments/cli/interrupt.c). */
extern int pbd_test_fault_hang;

#endif
