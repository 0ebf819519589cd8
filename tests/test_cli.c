/* The programs' command lines: --help, --version, and one clear error with status 2.
 * The loop tests take every program of the build (PBD_BIN/pbd-*) and every experiment
 * (pbd-run EXPERIMENT), read their options from --help and try bad values on each. */
#include "tests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/* ---- every program ------------------------------------------------------------------ */

#define MAX_PROGRAMS 64
#define OUT_SIZE 65536

typedef struct program {
    char path[512];
    char sub[64]; /* the experiment for pbd-run EXPERIMENT, or "" */
    char name[600];
} program;

static char out_path[64], err_path[64];
static char out_text[OUT_SIZE], err_text[OUT_SIZE];

static int suite_init(void)
{
    snprintf(out_path, sizeof out_path, "/tmp/pbd-test-cli-out-XXXXXX");
    snprintf(err_path, sizeof err_path, "/tmp/pbd-test-cli-err-XXXXXX");
    int a = mkstemp(out_path), b = mkstemp(err_path);
    if (a >= 0) close(a);
    if (b >= 0) close(b);
    return a < 0 || b < 0;
}

static int suite_clean(void)
{
    remove(out_path);
    remove(err_path);
    return 0;
}

static void slurp(const char *path, char *buf)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, OUT_SIZE - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run p with up to two more arguments; stdout and stderr go to out_text and err_text.
 * Returns the exit status (-1 when killed). posix_spawn: the test process may be large, and
 * this runs about a thousand programs. pbd-tests itself runs under timeout(1), so that a
 * broken option check cannot start the suite again and again. */
static int run_program(const program *p, const char *a1, const char *a2)
{
    fflush(stdout);
    fflush(stderr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_TRUNC, 0);
    char *argv[8];
    int n = 0;
    int guard = strstr(p->path, "pbd-tests") != NULL;
    if (guard) {
        argv[n++] = "timeout";
        argv[n++] = "60";
    }
    argv[n++] = (char *)p->path;
    if (*p->sub) argv[n++] = (char *)p->sub;
    if (a1) argv[n++] = (char *)a1;
    if (a2) argv[n++] = (char *)a2;
    argv[n] = NULL;
    pid_t pid;
    int rc = guard ? posix_spawnp(&pid, "timeout", &fa, NULL, argv, environ)
                   : posix_spawn(&pid, p->path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    slurp(out_path, out_text);
    slurp(err_path, err_text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static int list_programs(program *out, int max)
{
    int n = 0;
    DIR *d = opendir(test_bin_dir());
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (strncmp(e->d_name, "pbd-", 4) != 0 || strchr(e->d_name, '.')) continue;
        program *p = &out[n];
        snprintf(p->path, sizeof p->path, "%s/%s", test_bin_dir(), e->d_name);
        struct stat sb;
        if (stat(p->path, &sb) != 0 || !S_ISREG(sb.st_mode) || access(p->path, X_OK) != 0)
            continue;
        p->sub[0] = '\0';
        snprintf(p->name, sizeof p->name, "%s", e->d_name);
        n++;
    }
    closedir(d);
    /* pbd-run EXPERIMENT: one program per experiment */
    char cmd[600], line[256];
    snprintf(cmd, sizeof cmd, "%s/pbd-run --list-experiments", test_bin_dir());
    FILE *f = popen(cmd, "r");
    while (f && fgets(line, sizeof line, f) && n < max) {
        program *p = &out[n];
        snprintf(p->path, sizeof p->path, "%s/pbd-run", test_bin_dir());
        if (sscanf(line, "%63s", p->sub) != 1) continue;
        snprintf(p->name, sizeof p->name, "pbd-run %s", p->sub);
        n++;
    }
    if (f) pclose(f);
    return n;
}

static int is_test_runner(const program *p) { return strstr(p->path, "pbd-tests") != NULL; }

/* A failed expectation prints the command and what it printed, once per case. */
static int expect(int ok, const program *p, const char *a1, const char *a2, const char *what)
{
    if (!ok)
        fprintf(stderr, "\n  %s %s %s: expected %s; stdout '%.200s' stderr '%.300s'", p->name,
                a1 ? a1 : "", a2 ? a2 : "", what, out_text, err_text);
    return ok;
}

/* An unknown flag, long or short: status 2 and one line naming it. */
static void test_unknown_flags_everywhere(void)
{
    static program progs[MAX_PROGRAMS];
    int n = list_programs(progs, MAX_PROGRAMS);
    for (int i = 0; i < n; i++) {
        const program *p = &progs[i];
        const char *flags[] = {"--no-such-flag", "--no-such-flag=3", "-z"};
        for (int k = 0; k < 3; k++) {
            int rc = run_program(p, flags[k], NULL);
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(flags[k], "="), flags[k]);
            CU_ASSERT(expect(rc == 2 && count_lines(err_text) == 1 && strstr(err_text, name) &&
                             !*out_text, p, flags[k], NULL, "status 2 and one line naming it"));
        }
        if (is_test_runner(p)) continue;
        /* a flag that takes no value given one */
        int rc = run_program(p, "--help=1", NULL);
        CU_ASSERT(expect(rc == 2 && count_lines(err_text) == 1, p, "--help=1", NULL,
                         "status 2 and one line"));
    }
}

/* One option row read back from --help: "  --name=X   help (a number in [0, 1]; default …)". */
typedef struct help_option {
    char name[64];
    char kind; /* 'X' number, 'N' integer, 'W' word, 'L' list, 'T' text, 'F' flag */
    int has_lo, has_hi, lo_open, hi_open;
    double lo, hi;
} help_option;

static int parse_range(const char *text, help_option *o)
{
    const char *r;
    if ((r = strstr(text, " in ["))) {
        o->lo_open = 0;
    } else if ((r = strstr(text, " in ("))) {
        o->lo_open = 1;
    } else if ((r = strstr(text, " >= "))) {
        o->has_lo = 1;
        o->lo = strtod(r + 4, NULL);
        return 1;
    } else if ((r = strstr(text, " > "))) {
        o->has_lo = o->lo_open = 1;
        o->lo = strtod(r + 3, NULL);
        return 1;
    } else if ((r = strstr(text, " <= "))) {
        o->has_hi = 1;
        o->hi = strtod(r + 4, NULL);
        return 1;
    } else {
        return strstr(text, "a finite") != NULL;
    }
    char *end;
    o->has_lo = o->has_hi = 1;
    o->lo = strtod(r + 5, &end);
    if (*end != ',') return 0;
    o->hi = strtod(end + 1, &end);
    o->hi_open = *end == ')';
    return *end == ']' || *end == ')';
}

static int parse_help(const char *help, help_option *out, int max)
{
    int n = 0;
    const char *line = help;
    while (line && *line && n < max) {
        const char *next = strchr(line, '\n');
        char buf[1024];
        size_t len = next ? (size_t)(next - line) : strlen(line);
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = next ? next + 1 : NULL;
        help_option o = {0};
        char arg[16] = "";
        int got = sscanf(buf, " --%63[a-z0-9-]=%15s", o.name, arg);
        if (got < 1) continue;
        if (got == 1) {
            o.kind = 'F'; /* a flag (or --help, --version) */
        } else if (strcmp(arg, "X") == 0 || strcmp(arg, "N") == 0) {
            o.kind = arg[0];
            const char *par = strstr(buf, "(a number");
            if (!par) par = strstr(buf, "(an integer");
            if (!par) par = strstr(buf, "(a finite");
            if (!par || !parse_range(par, &o)) continue;
        } else if (strcmp(arg, "WORD") == 0) {
            o.kind = 'W';
        } else if (strstr(buf, "(list)")) {
            o.kind = 'L';
        } else {
            o.kind = 'T';
        }
        out[n++] = o;
    }
    return n;
}

/* A value just outside the range (none when the range is unbounded). */
static int outside(const help_option *o, int below, char *buf, size_t size)
{
    if (below && o->has_lo) {
        double v = o->lo_open ? o->lo : o->lo - (o->kind == 'N' ? 1.0 : fmax(1.0, fabs(o->lo)));
        snprintf(buf, size, "--%.63s=%.17g", o->name, v);
        return 1;
    }
    if (!below && o->has_hi) {
        double v = o->hi_open ? o->hi : o->hi + (o->kind == 'N' ? 1.0 : fmax(1.0, fabs(o->hi)));
        snprintf(buf, size, "--%.63s=%.17g", o->name, v);
        return 1;
    }
    return 0;
}

/* --help and --version: status 0 on stdout, nothing on stderr. */
static void test_help_and_version_everywhere(void)
{
    static program progs[MAX_PROGRAMS];
    int n = list_programs(progs, MAX_PROGRAMS);
    CU_ASSERT(n >= 7 + 10); /* seven programs and the experiment suite */
    for (int i = 0; i < n; i++) {
        const program *p = &progs[i];
        int rc = run_program(p, "--help", NULL);
        CU_ASSERT(expect(rc == 0 && strstr(out_text, "Usage:") && strstr(out_text, "--version") &&
                         !*err_text, p, "--help", NULL, "status 0 and a usage on stdout"));
        /* every option name once (a second row of the same name could never be set) */
        static help_option opts[128];
        int n_opts = parse_help(out_text, opts, 128), dup = 0;
        for (int a = 0; a < n_opts; a++)
            for (int b = a + 1; b < n_opts; b++) dup += strcmp(opts[a].name, opts[b].name) == 0;
        CU_ASSERT(expect(dup == 0, p, "--help", NULL, "no option listed twice"));
        rc = run_program(p, "--version", NULL);
        CU_ASSERT(expect(rc == 0 && strstr(out_text, "(pbdlab) " PBD_VERSION) &&
                         count_lines(out_text) == 1 && !*err_text,
                         p, "--version", NULL, "status 0 and one version line"));
    }
}

/* Every numeric option of every program and experiment: NaN, Inf, text and values outside
 * its stated range give status 2 and one line naming the flag, the value and the range;
 * every choice rejects an unknown word, every list of an experiment a NaN. */
static void test_bad_values_everywhere(void)
{
    static program progs[MAX_PROGRAMS];
    static char help[OUT_SIZE];
    static help_option opts[128];
    int n = list_programs(progs, MAX_PROGRAMS), n_checked = 0;
    for (int i = 0; i < n; i++) {
        const program *p = &progs[i];
        if (is_test_runner(p)) continue;
        if (run_program(p, "--help", NULL) != 0) continue; /* reported by the help test */
        memcpy(help, out_text, sizeof help);
        int n_opts = parse_help(help, opts, 128), first_number = 1;
        for (int k = 0; k < n_opts; k++) {
            const help_option *o = &opts[k];
            if (o->kind == 'F' || o->kind == 'T') continue;
            char arg[160], expected[80];
            snprintf(expected, sizeof expected, "--%.63s: expected ", o->name);
            /* an experiment only lists its runs (lists are parsed when the sweep is
             * enumerated), so that a value wrongly accepted never starts a sweep */
            const char *extra = *p->sub ? "--list" : NULL;
            const char *bad[6];
            char low[160], high[160];
            int nb = 0;
            if (o->kind == 'X' || o->kind == 'N') {
                bad[nb++] = "nan";
                /* an open end must still refuse infinity */
                if (o->kind == 'X' && !o->has_hi) bad[nb++] = "inf";
                if (o->kind == 'X' && !o->has_lo) bad[nb++] = "-inf";
                if (first_number) { /* the parser's other refusals, once per program */
                    first_number = 0;
                    bad[nb++] = "1x";
                    bad[nb++] = "";
                }
            } else if (o->kind == 'W') {
                bad[nb++] = "no-such-word";
            } else {
                bad[nb++] = "nan";
            }
            for (int b = 0; b < nb; b++) {
                snprintf(arg, sizeof arg, "--%.63s=%.20s", o->name, bad[b]);
                int rc = run_program(p, arg, extra);
                char found[80];
                snprintf(found, sizeof found, "found '%s'", bad[b]);
                CU_ASSERT(expect(rc == 2 && count_lines(err_text) == 1 &&
                                 strstr(err_text, expected) && strstr(err_text, found),
                                 p, arg, extra, "status 2, one line: flag, range, value"));
                n_checked++;
            }
            /* one value outside the range: below it when it has a lower end */
            for (int below = 1; below >= 0; below--) {
                if (!outside(o, below, below ? low : high, sizeof low)) continue;
                const char *a = below ? low : high;
                int rc = run_program(p, a, extra);
                CU_ASSERT(expect(rc == 2 && count_lines(err_text) == 1 &&
                                 strstr(err_text, expected) &&
                                 (strstr(err_text, " in [") || strstr(err_text, " in (") ||
                                  strstr(err_text, " >") || strstr(err_text, " <=")),
                                 p, a, extra, "status 2, one line with the allowed range"));
                n_checked++;
                break;
            }
        }
    }
    CU_ASSERT(n_checked > 200);
}

/* Values a researcher could mistype on the scene runner and on an experiment. */
static void test_out_of_range_physics(void)
{
    const char *scene_bad[] = {"--dt=-0.01", "--dt=0", "--mass=-1", "--mass=0",
                               "--stiffness=-0.1", "--stiffness=1.0001", "--compliance=-1e-9",
                               "--iterations=0", "--iterations=-3", "--substeps=0",
                               "--k-damping=2", "--sor-omega=2.5", "--threads=-1",
                               "--k-bend=1.5", "--dt=1e-400", "--steps=0"};
    for (unsigned i = 0; i < sizeof scene_bad / sizeof *scene_bad; i++) {
        char args[256];
        snprintf(args, sizeof args, "chain %s", scene_bad[i]);
        CU_ASSERT(run(args) == 2);
    }
    const char *exp_bad[] = {"spring_oscillator --compliance=-1", "spring_oscillator --mass=0",
                             "spring_oscillator --rates=60,-1 --list",
                             "spring_oscillator --iterations=5,0 --list",
                             "stretch_bend_independence --k-stretch=0.5,1.5 --list",
                             "stretch_bend_independence --k-bend=nan --list",
                             "chain_forces --compliance=-1e-6", "momentum_drift --k-damping=1.1",
                             "tet_inversion --iterations=0", "convergence --omegas=0.5,2.5 --list",
                             "balloon_pressure --skins=0.5,inf --list", "scaling --threads=0 --list"};
    for (unsigned i = 0; i < sizeof exp_bad / sizeof *exp_bad; i++) CU_ASSERT(run(exp_bad[i]) == 2);
}

void register_cli_tests(void)
{
    CU_pSuite s = CU_add_suite("cli", suite_init, suite_clean);
    CU_add_test(s, "pbd_run_flags", test_pbd_run_flags);
    CU_add_test(s, "error_message", test_error_message);
    CU_add_test(s, "help_and_version_everywhere", test_help_and_version_everywhere);
    CU_add_test(s, "unknown_flags_everywhere", test_unknown_flags_everywhere);
    CU_add_test(s, "bad_values_everywhere", test_bad_values_everywhere);
    CU_add_test(s, "out_of_range_physics", test_out_of_range_physics);
}
