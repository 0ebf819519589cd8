/* Table-driven GNU long-option parser: every program gets --help, --version and one
 * clear error line (flag, value, allowed range) with exit status 2. */
#include "pbd_cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_range(FILE *out, const cli_option *o)
{
    if (o->kind == CLI_CHOICE) {
        fputs("one of", out);
        for (const char *const *c = o->choices; *c; c++) fprintf(out, " %s", *c);
        return;
    }
    const char *what = o->kind == CLI_INT ? "an integer" : "a number";
    int has_lo = isfinite(o->lo), has_hi = isfinite(o->hi);
    /* integers' limits as integers (1000000000, not 1e+09) */
    const char *f = o->kind == CLI_INT ? "%.0f" : "%g";
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, f, o->lo);
    snprintf(hi, sizeof hi, f, o->hi);
    if (has_lo && has_hi)
        fprintf(out, "%s in %s%s, %s%s", what, o->lo_open & 1 ? "(" : "[", lo, hi,
                o->lo_open & 2 ? ")" : "]");
    else if (has_lo)
        fprintf(out, "%s %s %s", what, o->lo_open & 1 ? ">" : ">=", lo);
    else if (has_hi)
        fprintf(out, "%s %s %s", what, o->lo_open & 2 ? "<" : "<=", hi);
    else
        fprintf(out, "a finite %s", o->kind == CLI_INT ? "integer" : "number");
}

void cli_print_options(FILE *out, const cli_option *opts, int n_opts)
{
    for (int i = 0; i < n_opts; i++) {
        const cli_option *o = &opts[i];
        char left[64];
        const char *arg = o->kind == CLI_FLAG     ? ""
                          : o->kind == CLI_STRING ? "=TEXT"
                          : o->kind == CLI_CHOICE ? "=WORD"
                          : o->kind == CLI_INT    ? "=N"
                                                  : "=X";
        snprintf(left, sizeof left, "--%s%s", o->name, arg);
        fprintf(out, "  %-24s %s", left, o->help);
        if (o->kind == CLI_DOUBLE || o->kind == CLI_INT || o->kind == CLI_CHOICE) {
            fputs(" (", out);
            print_range(out, o);
            if (o->kind == CLI_DOUBLE) fprintf(out, "; default %g", *(double *)o->value);
            if (o->kind == CLI_INT) fprintf(out, "; default %d", *(int *)o->value);
            if (o->kind == CLI_CHOICE) fprintf(out, "; default %s", o->choices[*(int *)o->value]);
            fputc(')', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "  %-24s %s\n  %-24s %s\n", "--help", "print this help and exit", "--version",
            "print the version and exit");
}

static int reject(const char *prog, const cli_option *o, const char *value)
{
    fprintf(stderr, "%s: --%s: expected ", prog, o->name);
    print_range(stderr, o);
    fprintf(stderr, ", found '%s'\n", value);
    return CLI_ERROR;
}

static int in_range(const cli_option *o, double v)
{
    if (!isfinite(v)) return 0;
    if (isfinite(o->lo) && (o->lo_open & 1 ? !(v > o->lo) : !(v >= o->lo))) return 0;
    if (isfinite(o->hi) && (o->lo_open & 2 ? !(v < o->hi) : !(v <= o->hi))) return 0;
    return 1;
}

/* A number is the whole of the text: no space before or after it (strtod would skip a
 * leading one). A subnormal (1e-320) is a number: strtod's ERANGE is only an error when
 * the value overflowed. */
static int parse_number(const char *value, double *v)
{
    char *end = NULL;
    if (!*value || isspace((unsigned char)value[0])) return -1;
    errno = 0;
    *v = strtod(value, &end);
    if (end == value || *end) return -1;
    if (errno == ERANGE && (isinf(*v) || fabs(*v) >= 1.0)) return -1;
    return 0;
}

static int set_value(const char *prog, const cli_option *o, const char *value)
{
    switch (o->kind) {
    case CLI_DOUBLE: {
        double v;
        if (parse_number(value, &v) != 0 || !in_range(o, v)) return reject(prog, o, value);
        *(double *)o->value = v;
        return CLI_OK;
    }
    case CLI_INT: { /* 1000, or a whole number written 1e3 */
        double v;
        if (parse_number(value, &v) != 0 || v != floor(v) || v < -2147483647.0 ||
            v > 2147483647.0 || !in_range(o, v))
            return reject(prog, o, value);
        *(int *)o->value = (int)v;
        return CLI_OK;
    }
    case CLI_CHOICE:
        for (int c = 0; o->choices[c]; c++)
            if (strcmp(o->choices[c], value) == 0) {
                *(int *)o->value = c;
                return CLI_OK;
            }
        return reject(prog, o, value);
    case CLI_STRING:
        *(const char **)o->value = value;
        return CLI_OK;
    case CLI_FLAG:
        break;
    }
    return CLI_ERROR;
}

/* The options the last cli_parse set, by their value pointers (cli_given). */
#define CLI_MAX_GIVEN 256
static const void *given[CLI_MAX_GIVEN];
static int n_given;

int cli_given(const void *value)
{
    for (int i = 0; i < n_given; i++)
        if (given[i] == value) return 1;
    return 0;
}

static void mark_given(const cli_option *o)
{
    if (!cli_given(o->value) && n_given < CLI_MAX_GIVEN) given[n_given++] = o->value;
}

int cli_parse(const char *prog, const char *usage, int argc, char **argv, int first,
              const cli_option *opts, int n_opts, const char **positional, int max_positional,
              int *n_positional)
{
    int np = 0, options_end = 0;
    n_given = 0;
    for (int a = first; a < argc; a++) {
        const char *arg = argv[a];
        if (!options_end && strcmp(arg, "--") == 0) { /* the rest are positional */
            options_end = 1;
            continue;
        }
        if (options_end || arg[0] != '-' || arg[1] == '\0') {
            if (np >= max_positional) {
                fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, arg);
                return CLI_ERROR;
            }
            positional[np++] = arg;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            printf("Usage: %s\n\nOptions:\n", usage);
            cli_print_options(stdout, opts, n_opts);
            return CLI_EXIT_OK;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("%s (pbdlab) %s\n", prog, PBD_VERSION);
            return CLI_EXIT_OK;
        }
        if (arg[1] != '-') { /* only -h has a short form */
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, arg);
            return CLI_ERROR;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const cli_option *o = NULL;
        for (int i = 0; i < n_opts; i++)
            if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) o = &opts[i];
        if (!o) {
            fprintf(stderr, "%s: unknown option '--%.*s' (see --help)\n", prog, (int)len, name);
            return CLI_ERROR;
        }
        if (o->kind == CLI_FLAG) {
            if (eq) {
                fprintf(stderr, "%s: --%s: expected no value, found '%s'\n", prog, o->name, eq + 1);
                return CLI_ERROR;
            }
            *(int *)o->value = 1;
            mark_given(o);
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (a + 1 >= argc) {
                fprintf(stderr, "%s: --%s: expected a value, found the end of the command line\n",
                        prog, o->name);
                return CLI_ERROR;
            }
            value = argv[++a];
        }
        if (set_value(prog, o, value) != CLI_OK) return CLI_ERROR;
        mark_given(o);
    }
    if (n_positional) *n_positional = np;
    return CLI_OK;
}
