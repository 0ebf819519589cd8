/* The method table: one row per method, in the order of pbd_method (solver/pbd.h), and the
 * only place the list of methods is written. Adding a method = one file defining
 * `const pbd_method_ops pbd_NAME_method` (solver/method.h) + one row PBD_METHOD_ROW(NAME)
 * below (solver/README.md "The method table"; `make test-new-method` follows that recipe
 * with a throw-away method). The list is expanded twice, into the declarations and into the
 * table, as constraints/registry.c does for the types. */
#include "solver/method.h"

#include <string.h>

#define PBD_METHODS(PBD_METHOD_ROW)                                                        \
    PBD_METHOD_ROW(pbd)                                                                    \
    PBD_METHOD_ROW(xpbd)                                                                   \
    PBD_METHOD_ROW(newton)                                                                 \
    PBD_METHOD_ROW(vbd)                                                                    \
    PBD_METHOD_ROW(avbd)                                                                   \
    PBD_METHOD_ROW(pd)                                                                     \
    /* new rows above this line: PBD_METHOD_ROW(name) \ for pbd_name_method */

#define PBD_DECLARE(name) extern const pbd_method_ops pbd_##name##_method;
#define PBD_ROW(name) &pbd_##name##_method,
PBD_METHODS(PBD_DECLARE)

static const pbd_method_ops *const methods[] = {PBD_METHODS(PBD_ROW)};

int pbd_method_count(void) { return (int)(sizeof methods / sizeof methods[0]); }

const pbd_method_ops *pbd_method_of(const pbd_solver_def *d) { return methods[d->method]; }

const pbd_method_ops *pbd_method_at(int i) { return methods[i]; }

const char *pbd_method_name(int method)
{
    return method >= 0 && method < pbd_method_count() ? methods[method]->name : NULL;
}

int pbd_method_find(const char *name)
{
    for (int i = 0; i < pbd_method_count(); i++)
        if (strcmp(methods[i]->name, name) == 0) return i;
    return -1;
}

pbd_status pbd_method_check(const pbd_world *w)
{
    pbd_status st = pbd_solver_def_validate(&w->def);
    if (st != PBD_OK) return st;
    const pbd_method_ops *m = pbd_method_of(&w->def);
    return m->check ? m->check(w) : PBD_OK;
}
