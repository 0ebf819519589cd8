/* Helpers of the mesh suites (tests/test_mesh.c, tests/test_mesh_scenes.c): the test data
 * directory and the check of a loader's one-line error message. Private to the tests. */
#ifndef PBD_MESH_CHECK_H
#define PBD_MESH_CHECK_H

#include <stdio.h>
#include <string.h>

#include "tests.h"

#define DATA "tests/data/"

static inline int contains(const char *s, const char *word)
{
    int ok = strstr(s, word) != NULL;
    if (!ok) fprintf(stderr, "\n    message \"%s\" lacks \"%s\"", s, word);
    return ok;
}

/* The last error names file:line (line > 0) and every key word. */
static inline void check_message(const char *path, int line, const char *const *words)
{
    char where[512];
    if (line > 0)
        snprintf(where, sizeof where, "%s:%d: expected ", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    const char *msg = pbd_last_error();
    CU_ASSERT(contains(msg, where));
    CU_ASSERT(contains(msg, "found"));
    CU_ASSERT(strchr(msg, '\n') == NULL); /* one line */
    for (int i = 0; words[i]; i++) CU_ASSERT(contains(msg, words[i]));
}

#endif
