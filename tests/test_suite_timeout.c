/* A suite that cannot stall: tests/check-suite-timeout.sh runs experiments/drivers/
 * run_all.sh on three quick runs, one hanging (--test-fault=hang), and checks that the suite
 * ends with that run named failed ("timed out after 3 s") and the others done; a run that
 * ignores SIGTERM is killed; six runs ending together get six numbers; the limit follows
 * the recorded durations. About 20 s. */
#include "tests.h"

#include <CUnit/CUnit.h>
#include <stdio.h>

static void test_hanging_run_named_others_done(void)
{
    char cmd[1024];
    /* the outer limit: a slip that lets the hanging run hang must fail, not stall the tests */
    snprintf(cmd, sizeof cmd, "timeout -k 5 300 sh tests/check-suite-timeout.sh '%s'",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
}

void register_suite_timeout_tests(void)
{
    CU_pSuite s = CU_add_suite("suite_timeout", NULL, NULL);
    CU_add_test(s, "hanging_run_named_others_done", test_hanging_run_named_others_done);
}
