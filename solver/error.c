/* One place where errors are recorded (like GSL_ERROR through gsl_error). */
#include "pbd.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

pbd_status pbd_error(pbd_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *pbd_last_error(void) { return last_error; }
