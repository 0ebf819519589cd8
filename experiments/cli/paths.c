/* Output directories: mkdir -p for result files. */
#include "pbd_cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int pbd_mkdirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (buf[0] && mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

int pbd_mkdir_parents(const char *file_path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", file_path) >= (int)sizeof dir) return -1;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    return pbd_mkdirs(dir);
}
