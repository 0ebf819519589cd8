/* One place where errors are recorded (like GSL_ERROR through gsl_error). */
#include "pbd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];
static _Thread_local pbd_status last_status = PBD_OK;

pbd_status pbd_error(pbd_status status, const char *fmt, ...)
{
    /* formatted aside first: an argument may be pbd_last_error() itself */
    char line[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    memcpy(last_error, line, sizeof line);
    last_status = status;
    return status;
}

pbd_status pbd_last_status(void) { return last_status; }

const char *pbd_last_error(void) { return last_error; }
