/* The CUnit test executable: one suite per area, registered in test_main.c. */
#ifndef PBD_TESTS_H
#define PBD_TESTS_H

#include <CUnit/CUnit.h>
#include <sys/types.h>

#include "experiments/pbd_experiments.h"
#include "solver/pbd.h"
#include "solver/collision/pbd_collision.h"
#include "solver/rigid/pbd_rigid.h"

/* Each area's file defines one of these; it adds its suite and tests. They are weak so
 * that an area's suite is registered exactly when its file is part of the build. */
#define PBD_TEST_SUITES(X)                                                                \
    X(projection) X(step) X(cli) X(constraints) X(constraints_projection) X(gradcheck)    \
    X(fd) X(variants) X(newton) X(damping) X(mesh) X(mesh_scenes) X(collision)            \
    X(collision_self) X(spatial_hash) X(balloon) X(tearing) X(tearing_scene) X(rigid)     \
    X(h5log) X(experiments) X(fastpath) X(fastpath_layout) X(robustness) X(bending)       \
    X(bending_isometric) X(output) X(recompute) X(truth) X(faults) X(faults_files)        \
    X(hessian) X(newton_sparse) X(newton_run) X(materials) X(flags) X(log_truths)        \
    X(families) X(fluid) X(integrity) X(globalisation) X(references) X(rods)              \
    X(newton_scale) X(headlines) X(rod_twist) X(headline_slips) X(newton_units)          \
    X(newton_sheets) X(blas_threads) X(defects) X(orient) X(fluid_passes) \
    X(run_truths) X(rod_closed_form) X(families_path) X(contact_scenes) \
    X(memory_refusal) X(newton_saddle) X(contact_truths) X(vertex_block) \
    X(suite_timeout) X(reference_failure) X(schema_doc) X(rigid_xpbd) X(rigid_contact) X(pin) \
    X(rigid_joints) X(sweep) X(python) X(bounds) X(families_contact) X(joint_gradients) \
    X(rigid_mesh) X(rigid_velocity) X(families_pd_gather) X(rigid_box_clip) \
    X(rigid_mesh_contact)
#define PBD_DECLARE_SUITE(area) void register_##area##_tests(void) __attribute__((weak));
PBD_TEST_SUITES(PBD_DECLARE_SUITE)

/* Helpers shared by the suites (test_main.c). */
pbd_world *test_two_particles(const double p1[3], const double p2[3], double m1, double m2);
/* 1 when all n values are finite. */
int test_all_finite(const double *a, int n);
/* A cloth scene under --method=newton: --stretch, E, --compliance, --bend-compliance,
 * --k-bend and --substeps as given, the rest at the defaults; NULL when it cannot build. */
pbd_world *test_newton_sheet(const char *scene, const char *stretch, double E, double compliance,
                             double bend_compliance, double k_bend, int substeps);
/* Remove a temporary directory and everything in it (rm -rf); its exit status. */
int test_remove_dir(const char *dir);
/* Run a shell command, return its exit status (or -1). */
int test_run(const char *cmd);
/* Run a shell command whose stderr goes to err_path (the command says so: 2>err_path), then
 * read that file into err (size bytes, NUL-terminated; "" when there is none): its exit
 * status, as test_run. */
int test_run_stderr(const char *cmd, const char *err_path, char *err, size_t size);
/* The directory that holds the programs (PBD_BIN, default "build"). */
const char *test_bin_dir(void);
/* 1 when path exists (stat succeeds). */
int test_exists(const char *path);
/* The newlines in s (the lines of a program's stderr). */
int test_count_lines(const char *s);
/* Start test_bin_dir()/<prog> with args (NULL-terminated) in a child process: stdout to
 * /dev/null, stderr to err_path. fsize_limit > 0: RLIMIT_FSIZE in bytes with SIGXFSZ
 * ignored, so that writes beyond it fail with EFBIG as on a full disk. Returns the child's
 * pid (-1 when fork failed). */
pid_t test_spawn(const char *prog, const char *const *args, const char *err_path,
                 long fsize_limit);
/* Wait at most `seconds` for pid: its exit status, 1000 + signal when a signal killed it, or
 * -1 (then it is killed: it hung). The child's stderr (err_path) goes to err_text. */
int test_wait_within(pid_t pid, double seconds, const char *err_path, char *err_text,
                     size_t size);
/* Run test_bin_dir()/<prog> with args and an --out= of its own (a temporary directory,
 * removed after), sampling its threads (/proc/PID/task) every millisecond until it exits:
 * the most seen (libgomp keeps a team's threads until the process ends, so none is missed),
 * or -1; *status its exit status (stderr printed when not 0). */
int test_run_threads(const char *prog, const char *const *args, int *status);

/* How far a batched vertex block's C of a constraint of the type may be from the scalar
 * vertex_block's C (rest values rest): 0 = bit for bit (tests/test_vertex_block.c). */
double test_vblock_C_bound(const pbd_constraint_type *type, double C, const double *rest);

/* Two joined free bodies of w set moving and stepped 60 times: the largest drift of the
 * linear momentum (kg m/s) and the relative drift of the angular momentum; w is freed
 * (tests/test_rigid_xpbd.c). */
void test_rigid_momentum_drift(pbd_rigid_world *w, double *dp, double *dl);
/* A joint of the kind between bodies b1 and b2, every other field 0 (tests/test_rigid_xpbd.c). */
pbd_rigid_joint test_rigid_joint(pbd_joint_kind kind, int b1, int b2);
/* A flat 0.4 x 0.01 x 0.3 m box (μs 0.5, μk 0.4) on the ground launched at 3 m/s, 10 substeps x
 * 1 iteration: the distance it slides before it stops (m; test_rigid_xpbd.c) */
double test_rigid_stopping(double mass, pbd_rigid_friction_form form, int velocity_passes);
/* w stepped (at most 1200 steps) until body b, a ball of radius r dropped on a surface at
 * y = 0, reaches its first apex after the bounce: the height of its bottom then (m; NaN when
 * none; test_rigid_xpbd.c) */
double test_rigid_first_apex(pbd_rigid_world *w, int b, double r);

#endif
