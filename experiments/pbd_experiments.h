/* pbdlab — the experiments room's public header: meshes, scenes, the programs' command
 * line, the HDF5 log and the experiment drivers, each from its inner room's header. */
#ifndef PBD_EXPERIMENTS_H
#define PBD_EXPERIMENTS_H

#include "experiments/cli/pbd_cli.h"
#include "experiments/drivers/pbd_drivers.h"
#include "experiments/log/pbd_log.h"
#include "experiments/mesh/pbd_mesh.h"
#include "experiments/scenes/pbd_scenes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
