/* A sweep file (`pbd-run --sweep=FILE`; experiments/README.md "Your own sweep"): one
 * `KEY = VALUE[, VALUE...]` a line, KEY `scene` or a pbd-run option; the grid of runs is
 * every combination of the values. A bad line is refused with FILE:LINE, what was expected
 * and what was found. */
#include "drivers_private.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pbd-run's own options that a sweep sets itself or that have no place in it */
static const char *const not_in_sweep[] = {"out", "run", "sweep", "sweep-hash", "quiet", "every",
                                           "list-experiments", "test-fault-step", "test-fault",
                                           NULL};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static pbd_status bad(const pbd_sweep *s, int line, const char *expected, const char *found)
{
    return pbd_error(PBD_EINPUT, "%s:%d: expected %s, found %s", s->path, line, expected, found);
}

static char *copy(const char *t)
{
    char *c = malloc(strlen(t) + 1);
    if (c) strcpy(c, t);
    return c;
}

/* One value of an option, checked by the option parser itself (its range, its words), the
 * message prefixed with FILE:LINE. */
static pbd_status check_value(pbd_sweep *s, int line, const cli_option *o,
                              const char *value, const cli_option *opts, int n_opts)
{
    if (o->kind == CLI_FLAG) {
        if (strcmp(value, "yes") && strcmp(value, "no")) {
            char found[300];
            snprintf(found, sizeof found, "'%s' for the flag --%s", value, o->name);
            return bad(s, line, "yes or no", found);
        }
        return PBD_OK;
    }
    char prog[4200], arg[1200];
    snprintf(prog, sizeof prog, "pbd-run: %s:%d", s->path, line);
    snprintf(arg, sizeof arg, "--%s=%s", o->name, value);
    char *argv[] = {prog, arg, NULL};
    const char *positional[1];
    int np = 0;
    if (cli_parse(prog, "", 2, argv, 1, opts, n_opts, positional, 1, &np) != CLI_OK) {
        s->reported = 1; /* cli_parse printed the line */
        return pbd_error(PBD_EINPUT, "%s:%d: --%s: a bad value", s->path, line, o->name);
    }
    return PBD_OK;
}

/* KEY = VALUE[, VALUE...] into key k (values split at commas, trimmed, none empty, none
 * twice). */
static pbd_status read_values(pbd_sweep *s, int line, pbd_sweep_key *k, char *text)
{
    k->line = line;
    k->list = copy(text);
    int cap = 1;
    for (const char *c = text; *c; c++) cap += *c == ',';
    k->values = calloc((size_t)cap, sizeof *k->values);
    if (!k->list || !k->values) return pbd_error(PBD_ENOMEM, "%s: out of memory", s->path);
    char *p = text;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        char *v = trim(p);
        if (!*v) {
            char found[200];
            snprintf(found, sizeof found, "an empty value in the list of %s", k->name);
            return bad(s, line, "KEY = VALUE[, VALUE...] with no empty value", found);
        }
        for (int i = 0; i < k->n; i++)
            if (!strcmp(k->values[i], v)) {
                char found[400];
                snprintf(found, sizeof found, "'%s' twice in the list of %s", v, k->name);
                return bad(s, line, "each value once (it would run and merge the same runs "
                           "twice)", found);
            }
        if (!(k->values[k->n++] = copy(v))) return pbd_error(PBD_ENOMEM, "out of memory");
        if (!comma) return PBD_OK;
        p = comma + 1;
    }
}

static pbd_status read_line(pbd_sweep *s, int line, char *text, const cli_option *opts,
                            int n_opts)
{
    char *hash = strchr(text, '#');
    if (hash) *hash = '\0';
    char *t = trim(text);
    if (!*t) return PBD_OK;
    char *eq = strchr(t, '=');
    if (!eq) {
        char found[300];
        snprintf(found, sizeof found, "'%.200s'", t);
        return bad(s, line, "KEY = VALUE[, VALUE...]", found);
    }
    *eq = '\0';
    char *name = trim(t), *values = trim(eq + 1);
    if (!*values) {
        char found[200];
        snprintf(found, sizeof found, "no value after '%.100s ='", name);
        return bad(s, line, "KEY = VALUE[, VALUE...]", found);
    }
    if (!strcmp(name, "scene")) {
        if (s->scene_line) {
            char found[200];
            snprintf(found, sizeof found, "scene again (first at line %d)", s->scene_line);
            return bad(s, line, "one scene line", found);
        }
        if (strchr(values, ',') || !pbd_scene_find(values)) {
            char expected[1024] = "one scene of";
            for (int i = 0; i < pbd_scene_count(); i++) {
                strncat(expected, " ", sizeof expected - strlen(expected) - 1);
                strncat(expected, pbd_scene_at(i)->name, sizeof expected - strlen(expected) - 1);
            }
            char found[300];
            snprintf(found, sizeof found, "'%.200s'", values);
            return bad(s, line, expected, found);
        }
        snprintf(s->scene, sizeof s->scene, "%s", values);
        s->scene_line = line;
        return PBD_OK;
    }
    const cli_option *o = NULL;
    for (int i = 0; i < n_opts; i++)
        if (!strcmp(opts[i].name, name)) o = &opts[i];
    for (int i = 0; o && not_in_sweep[i]; i++)
        if (!strcmp(not_in_sweep[i], name)) o = NULL;
    if (!o) {
        char found[300];
        snprintf(found, sizeof found, "'%.200s'", name);
        return bad(s, line, "scene or a pbd-run option without its -- (pbd-run --help; not out, "
                   "run, quiet, every, test-fault*)", found);
    }
    for (int i = 0; i < s->n_keys; i++)
        if (!strcmp(s->keys[i].name, name)) {
            char found[300];
            snprintf(found, sizeof found, "%s again (first at line %d)", name, s->keys[i].line);
            return bad(s, line, "each key once", found);
        }
    if (s->n_keys == PBD_SWEEP_MAX_KEYS) return bad(s, line, "at most 64 keys", "more");
    pbd_sweep_key *k = &s->keys[s->n_keys++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->flag = o->kind == CLI_FLAG;
    pbd_status st = read_values(s, line, k, values);
    for (int i = 0; st == PBD_OK && i < k->n; i++)
        st = check_value(s, line, o, k->values[i], opts, n_opts);
    return st;
}

pbd_status pbd_sweep_read(const char *path, const char *scene, const cli_option *opts,
                          int n_opts, pbd_sweep *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    char why[1024];
    FILE *f = pbd_h5_regular_file(path, why, sizeof why) == 0 ? fopen(path, "r") : NULL;
    if (!f) return pbd_error(PBD_EINPUT, "--sweep: expected a readable sweep file, found %s",
                             path);
    char *text = NULL;
    size_t cap = 0;
    int line = 0;
    pbd_status st = PBD_OK;
    while (st == PBD_OK && getline(&text, &cap, f) > 0) {
        line++;
        if (strlen(text) > 4000) st = bad(s, line, "a line of at most 4000 bytes", "longer");
        else st = read_line(s, line, text, opts, n_opts);
    }
    free(text);
    fclose(f);
    if (st != PBD_OK) return st;
    if (scene && s->scene_line && strcmp(scene, s->scene)) {
        char found[300];
        snprintf(found, sizeof found, "'%s' here and '%s' on the command line", s->scene, scene);
        return bad(s, s->scene_line, "one scene", found);
    }
    if (scene && !s->scene_line) {
        if (!pbd_scene_find(scene))
            return pbd_error(PBD_EINVAL, "SCENE: expected a scene (pbd-run --help), found '%s'",
                             scene);
        snprintf(s->scene, sizeof s->scene, "%s", scene);
    }
    if (!s->scene[0])
        return pbd_error(PBD_EINPUT, "%s: expected a line 'scene = NAME' (or the scene on the "
                         "command line), found none", path);
    s->n_runs = 1;
    for (int i = 0; i < s->n_keys; i++) s->n_runs *= s->keys[i].n;
    if (s->n_runs > PBD_SWEEP_MAX_RUNS)
        return pbd_error(PBD_EINPUT, "%s: expected a grid of at most %d runs, found %ld", path,
                         PBD_SWEEP_MAX_RUNS, s->n_runs);
    /* run names must differ (a value is shortened to the characters a file name keeps) */
    char a[PBD_SWEEP_NAME], b[PBD_SWEEP_NAME];
    for (long i = 0; i < s->n_runs; i++)
        for (long j = i + 1; j < s->n_runs && s->n_runs <= 1000; j++) {
            pbd_sweep_run_name(s, i, a, sizeof a);
            pbd_sweep_run_name(s, j, b, sizeof b);
            if (!strcmp(a, b))
                return pbd_error(PBD_EINPUT, "%s: expected values that name distinct runs, "
                                 "found two runs named %s (values differing only in characters "
                                 "other than letters, digits, . + -)", path, a);
        }
    return PBD_OK;
}

void pbd_sweep_free(pbd_sweep *s)
{
    for (int i = 0; i < s->n_keys; i++) {
        for (int v = 0; v < s->keys[i].n; v++) free(s->keys[i].values[v]);
        free(s->keys[i].values);
        free(s->keys[i].list);
    }
    s->n_keys = 0;
}

int pbd_sweep_value(const pbd_sweep *s, long run, int key)
{
    for (int k = s->n_keys - 1; k > key; k--) run /= s->keys[k].n; /* the last key fastest */
    return (int)(run % s->keys[key].n);
}

void pbd_sweep_run_name(const pbd_sweep *s, long run, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->n_keys; k++) {
        if (s->keys[k].n < 2) continue;
        const char *v = s->keys[k].values[pbd_sweep_value(s, run, k)];
        used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s-",
                                 used ? "_" : "", s->keys[k].name);
        for (const char *c = v; *c && used + 1 < size; c++)
            buf[used++] = isalnum((unsigned char)*c) || strchr(".+-", *c) ? *c : '_';
        if (used < size) buf[used] = '\0';
    }
    if (!buf[0]) snprintf(buf, size, "run");
}
