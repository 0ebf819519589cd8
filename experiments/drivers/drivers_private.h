/* What the drivers' framework files share and no experiment needs (experiments/drivers/). */
#ifndef PBD_DRIVERS_PRIVATE_H
#define PBD_DRIVERS_PRIVATE_H

#include "pbd_drivers.h"

#include <stddef.h>

/* The sweep's parameters (quick and every parameter row) as 16 hex digits (sweep_check.c). */
void pbd_exp_sweep_hash(const pbd_exp_ctx *ctx, char *hex, size_t size);
/* Every run of the enumerated sweep can be merged: PBD_OK, or an error naming each run that
 * cannot and why (a missing, partial or corrupt file, another sweep's parameters). */
pbd_status pbd_exp_validate_runs(pbd_exp_ctx *ctx, const char *prog);

#endif
