/* The CUnit test executable: one suite per area, registered in test_main.c. */
#ifndef PBD_TESTS_H
#define PBD_TESTS_H

#include <CUnit/CUnit.h>

#include "../experiments/pbd_experiments.h"
#include "../solver/pbd.h"

/* Each area's file defines one of these; it adds its suite and tests. */
void register_projection_tests(void);
void register_step_tests(void);
void register_cli_tests(void);

/* Helpers shared by the suites (test_main.c). */
pbd_world *test_two_particles(const double p1[3], const double p2[3], double m1, double m2);
/* Run a shell command, return its exit status (or -1). */
int test_run(const char *cmd);
/* The directory that holds the programs (PBD_BIN, default "build"). */
const char *test_bin_dir(void);

#endif
