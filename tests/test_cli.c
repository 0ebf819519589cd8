/* The programs' command lines: --help, --version, and one clear error with status 2. */
#include "tests.h"

#include <stdio.h>

static int run(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s >/dev/null 2>&1", test_bin_dir(), args);
    return test_run(cmd);
}

static void test_pbd_run_flags(void)
{
    CU_ASSERT_EQUAL(run("--help"), 0);
    CU_ASSERT_EQUAL(run("--version"), 0);
    CU_ASSERT_EQUAL(run("chain --steps=3 --quiet"), 0);
    CU_ASSERT_EQUAL(run("cloth --dt 0.01 --steps 2 --iterations 3 --stiffness 0.5 --linearize"), 0);
    CU_ASSERT_EQUAL(run("chain --dt=-1"), 2);
    CU_ASSERT_EQUAL(run("chain --dt=nan"), 2);
    CU_ASSERT_EQUAL(run("chain --dt=inf"), 2);
    CU_ASSERT_EQUAL(run("chain --stiffness=1.5"), 2);
    CU_ASSERT_EQUAL(run("chain --iterations=0"), 2);
    CU_ASSERT_EQUAL(run("chain --iterations=abc"), 2);
    CU_ASSERT_EQUAL(run("chain --compliance=-1"), 2);
    CU_ASSERT_EQUAL(run("chain --no-such-flag"), 2);
    CU_ASSERT_EQUAL(run("no-such-scene"), 2);
    CU_ASSERT_EQUAL(run(""), 2);
}

/* The error line names the flag, the value found and the allowed range. */
static void test_error_message(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run chain --stiffness=2 2>&1 | grep -q "
             "\"pbd-run: --stiffness: expected a number in \\[0, 1\\], found '2'\"",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
}

void register_cli_tests(void)
{
    CU_pSuite s = CU_add_suite("cli", NULL, NULL);
    CU_add_test(s, "pbd_run_flags", test_pbd_run_flags);
    CU_add_test(s, "error_message", test_error_message);
}
