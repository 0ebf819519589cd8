/* pbdlab — logging a rigid world (solver/rigid/) like the particles (experiments/log/
 * h5log_rigid.c; the schema is experiments/README.md "HDF5 results", the rigid scenes
 * experiments/README.md "Meshes and scenes"). */
#ifndef PBD_LOG_RIGID_H
#define PBD_LOG_RIGID_H

#include "experiments/log/pbd_log.h"
#include "solver/rigid/pbd_rigid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file of a rigid run is the particles' (pbd_h5log) of a stand-in particle world, the
 * mirror: one particle per body (its centre, velocity and mass; a fixed body pinned) and one
 * orientation per body (its quaternion, angular velocity and inverse inertias), so that
 * /scene, /frames (positions, orientations, velocities) and the XDMF sidecar (the bodies as
 * points) are the particles' own. Its def carries the rigid world's dt, substeps,
 * iterations and gravity (method xpbd), its step count and time the rigid world's, and its
 * measured stats the rigid measures (linear and angular momentum, kinetic energy
 * translational + rotational, potential energy; no constraint residuals: NaN). */
typedef struct pbd_rigid_log {
    const pbd_rigid_world *rigid;
    pbd_world *mirror;
    pbd_h5log *log;
    int c_kt, c_kr, c_pot, c_p, c_l, c_vmax;
} pbd_rigid_log;

/* The mirror of rw (NULL with pbd_last_error() when out of memory). */
pbd_world *pbd_rigid_mirror_create(const pbd_rigid_world *rw);
/* The mirror takes the rigid world's state, time, step count and measures. */
void pbd_rigid_mirror_sync(pbd_world *mirror, const pbd_rigid_world *rw);
/* After the log of rl->mirror is open (rl->rigid, rl->mirror set): the per-step columns
 * kinetic_translational, kinetic_rotational, potential (J), rigid_momentum (kg m/s),
 * rigid_angular_momentum (kg m²/s), max_body_speed (m/s), the attributes rigid.* (dt,
 * substeps, iterations, bodies, joints, ground, friction_form) and /results/rigid_bodies
 * (per body: shape kind 0 sphere 1 box 2 capsule 3 none, mass kg, radius m, half extents m). */
pbd_status pbd_rigid_log_begin(pbd_rigid_log *rl, pbd_h5log *log);
/* After a rigid step: sync the mirror, set the columns, pbd_h5log_step (its PBD_EINTR on a
 * stop request as for the particles). */
pbd_status pbd_rigid_log_step(pbd_rigid_log *rl);

#ifdef __cplusplus
}
#endif

#endif
