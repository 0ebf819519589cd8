/* Private to solver/rigid/: the 3-vector helpers and the stages of the step. */
#ifndef PBD_RIGID_PRIVATE_H
#define PBD_RIGID_PRIVATE_H

#include "constraints/pbd_constraint.h"
#include "constraints/vec3.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>

/* The world offset R(q) r of a body-frame point */
static inline void rigid_world_offset(const pbd_rigid_body *b, const double r[3], double out[3])
{
    pbd_quat_rotate(b->q, r, out);
}
static inline int rigid_dynamic(const pbd_rigid_body *b) { return b && b->inv_mass > 0.0; }

/* The pose x, q (NULL: identity) checked finite with q non-zero, qu = q/|q|; 0, or -1 with
 * pbd_error naming them */
int rigid_unit_pose(const double x[3], const double q[4], double qu[4]);

/* The corrections' updates (Sec. 3.3): the impulse p (kg m) at world offsets r1 to body 1
 * and −p at r2 to body 2, moving x and q; the angular impulse p (kg m^2) likewise */
void rigid_apply_positional(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                            const double r2[3], const double p[3]);
void rigid_apply_angular(pbd_rigid_body *b1, pbd_rigid_body *b2, const double p[3]);

/* The fixed joint's violation: the rotation vector 2 vec(q1 (q2 q_rel)⁻¹) (sign of the real
 * part) of body 1 away from its rest relative to body 2; *dw the real part of that quotient */
void rigid_fixed_rotation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double dtheta[3], double *dw);
/* Joints: the per-substep reset (λ, the velocity drives' targets) and the solves */
void rigid_joints_begin_substep(pbd_rigid_world *w, double h);
void rigid_joints_solve(pbd_rigid_world *w, double h);

/* ---- the joint catalogue's parts (one file per type; README "Joint types") ---------- */
extern const pbd_rigid_joint_type rigid_joint_fixed, rigid_joint_ball, rigid_joint_hinge,
    rigid_joint_prismatic;
/* the rows: the joint points (joint_point.c), the orientations (joint_fixed.c,
 * joint_hinge.c), the limits (joint_hinge.c, joint_ball.c, joint_prismatic.c), the drives
 * (joint_drive.c) */
extern const pbd_rigid_joint_row rigid_row_point, rigid_row_fixed_alignment,
    rigid_row_hinge_alignment, rigid_row_hinge_limit, rigid_row_swing_limit,
    rigid_row_twist_limit, rigid_row_slider_normal, rigid_row_slider_limit,
    rigid_row_hinge_drive, rigid_row_slider_drive;
extern const pbd_rigid_joint_drive_type rigid_drive_hinge, rigid_drive_slider;
/* The checks two types share: no swing or twist limits (a type other than the ball); a unit
 * axis and a unit reference normal to it in each body, and angle limits in [-pi, pi] */
int rigid_joint_no_swing_twist(const pbd_rigid_joint *j, const char *name);
int rigid_joint_axes_and_limits(pbd_rigid_joint *j, const pbd_rigid_joint *in,
                                const char *name);
/* Joint damping (Sec. 3.6), the velocity-solve part of every type */
void rigid_joint_damping(const pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                         double h);
/* The generalized gradients of the hinge angle and the slider offset (12 numbers: ∂x1, ∂θ1,
 * ∂x2, ∂θ2) */
void rigid_hinge_angle_gradient(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                                const pbd_rigid_body *b2, double g[12]);
void rigid_slider_offset_gradient(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                                  const pbd_rigid_body *b2, double g[12]);
/* g = (g1, t1, g2, t2), a NULL part read as zero */
void rigid_gradient_pair(double g[12], const double g1[3], const double t1[3],
                         const double g2[3], const double t2[3]);
/* The row C = ‖dx‖ of the two bodies' points at levers r1, r2 (dx = p1 − p2): n = dx/C,
 * ∇C = (n, r1 × n, −n, −r2 × n); 1 (C, ∇C zero) when dx vanishes */
int rigid_distance_row(const double dx[3], const double r1[3], const double r2[3], double *C,
                       double g[12]);
/* The row C = c of a limit on a coordinate s, c = s_c − s (0 inside): ∇C = −∇s from the
 * coordinate's gradient; 1 (∇C zero) when c is 0 */
int rigid_limit_row(double c, void (*coordinate_gradient)(const pbd_rigid_joint *,
                                                          const pbd_rigid_body *,
                                                          const pbd_rigid_body *, double[12]),
                    const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                    const pbd_rigid_body *b2, double *C, double g[12]);
/* The drive's coordinate at the present poses or (at_start) at the substep's start */
double rigid_drive_coordinate(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, int at_start);
/* the angle x wrapped to (-pi, pi] */
double rigid_wrap_angle(double x);
void rigid_joints_solve_velocities(pbd_rigid_world *w, double h);
pbd_status rigid_contacts_generate(pbd_rigid_world *w);
/* 1 when a joint joins bodies i and j (jointed bodies do not collide) */
int rigid_bodies_jointed(const pbd_rigid_world *w, int i, int j);
/* Room for one more contact of body b1 with body b2 at body-frame points r1, r2 along the
 * world normal n (from b2 towards b1); NULL when out of memory (pbd_last_error set) */
pbd_rigid_contact *rigid_contact_add(pbd_rigid_world *w, int b1, int b2, const double r1[3],
                                     const double r2[3], const double n[3]);
/* Contact candidates are taken up to this fraction of a body's reach (between boxes, of the
 * smaller half diagonal) from what it touches (the solve acts only while a candidate
 * penetrates): a point that touches during the iterations is then in the list */
#define RIGID_CONTACT_MARGIN 0.02
/* Box b's half extent along the world direction u (unit) */
double rigid_box_extent(const pbd_rigid_body *b, const double u[3]);
/* The bounding radius of a body's shape about its centre (0 without a shape) */
double rigid_body_reach(const pbd_rigid_body *b);

/* ---- static triangle-mesh colliders (mesh_collider.c, contact_mesh.c) ----------------- */

/* A node of a collider's bounding-volume tree: the box of its triangles; a leaf holds
 * order[first .. first + count), an inner node (count 0) its children left and left + 1 */
typedef struct {
    double lo[3], hi[3];
    int left, first, count;
} rigid_mesh_node;

struct pbd_rigid_mesh_collider {
    int body;              /* its fixed body (shape PBD_RIGID_MESH; frame = world axes) */
    int nv, nt;
    double *v;             /* nv × 3, world coordinates */
    int *tri;              /* nt × 3 */
    double *normal;        /* nt × 3, unit, (v1 − v0) × (v2 − v0) normalised: the front */
    int *order;            /* the triangles in the tree's leaf order */
    rigid_mesh_node *node;
    int n_nodes;
    int *found;            /* a query's triangles (room for nt) */
};
/* The triangles whose boxes overlap the box lo, hi: their indices in m->found; their number */
int rigid_mesh_query(const struct pbd_rigid_mesh_collider *m, const double lo[3],
                     const double hi[3]);
void rigid_mesh_colliders_free(pbd_rigid_world *w);
/* Every dynamic body's contacts with every mesh collider, at the predicted poses */
pbd_status rigid_mesh_contacts_generate(pbd_rigid_world *w);
void rigid_contacts_solve_positions(pbd_rigid_world *w, double h);
void rigid_contacts_solve_velocities(pbd_rigid_world *w, double h);

#endif
