/* XPBD rigid bodies after Müller, Macklin, Chentanez, Jeschke and Kim, "Detailed Rigid Body
 * Simulation with Extended Position Based Dynamics" (SCA 2020): bodies with shapes, joints
 * (fixed, ball with swing and twist limits, hinge with angle limits, prismatic with distance
 * limits; drives on hinges and sliders) and contacts with the ground plane and static
 * triangle meshes, stepped by the paper's Algorithm 2. A rigid world stands beside the particle world (solver/pbd.h); it
 * shares its quaternions (constraints/quat.c) and its errors (pbd_error).
 * Conventions, equations and errata: solver/rigid/README.md. */
#ifndef PBD_RIGID_H
#define PBD_RIGID_H

#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shapes and bodies ------------------------------------------------------------- */

typedef enum {
    PBD_RIGID_SPHERE, PBD_RIGID_BOX, PBD_RIGID_CAPSULE,
    PBD_RIGID_NO_SHAPE, /* a body that does not collide (e.g. a joint's anchor) */
    PBD_RIGID_CYLINDER, /* an inertia only (pbd_rigid_shape_inertia): no contacts yet, so
                         * pbd_rigid_add_body* refuse it as a body's shape */
    PBD_RIGID_MESH      /* a triangle mesh: a dynamic body's inertia from its volume
                         * integrals (pbd_rigid_add_body_mesh, no contacts: refused as a
                         * shape likewise), or a static collider's surface
                         * (pbd_rigid_add_mesh_collider) */
} pbd_rigid_shape_kind;

typedef struct {
    pbd_rigid_shape_kind kind;
    double radius;  /* sphere, capsule, cylinder (m) */
    double half[3]; /* box: half extents along the body axes (m); capsule, cylinder: half[0]
                     * is the half length of its segment or axis, along the body x axis */
} pbd_rigid_shape;

typedef struct {
    double x[3];     /* centre of mass (m) */
    double q[4];     /* orientation, unit quaternion (w, x, y, z), body to world */
    double v[3];     /* m/s */
    double omega[3]; /* angular velocity in world coordinates (rad/s) */
    double inv_mass; /* 1/kg; 0 for a fixed body */
    double inv_inertia[3]; /* principal inverse inertias in the body frame, 1/(kg m^2) */
    pbd_rigid_shape shape;
    double static_friction, dynamic_friction, restitution; /* with the ground; between two
                                                            * bodies the means of theirs */
    /* per substep (Algorithm 2): the pose before the position solve's integration and the
     * velocities after it (the restitution's pre-solve normal velocity) */
    double x_prev[3], q_prev[4], v_pre[3], omega_pre[3];
} pbd_rigid_body;

/* A body's contact coefficients (with the ground; between two bodies the means) */
typedef struct {
    double static_friction, dynamic_friction, restitution;
} pbd_rigid_material;
static inline void pbd_rigid_set_material(pbd_rigid_body *b, const pbd_rigid_material *m)
{
    b->static_friction = m->static_friction;
    b->dynamic_friction = m->dynamic_friction;
    b->restitution = m->restitution;
}

/* Principal inertias (kg m^2) of a solid of the shape with mass m (kg). Returns PBD_EINVAL
 * (naming the field) for a non-positive or non-finite size or mass. */
pbd_status pbd_rigid_shape_inertia(const pbd_rigid_shape *s, double mass, double inertia[3]);

/* ---- joints ------------------------------------------------------------------------ */

typedef enum {
    PBD_JOINT_FIXED, PBD_JOINT_BALL, PBD_JOINT_HINGE,
    PBD_JOINT_PRISMATIC /* slider along axis[0]: orientations held as the fixed joint's, the
                         * joint points' offset normal to the axis zero (README "Conventions") */
} pbd_joint_kind;

/* A drive of a hinge (the angle about body 1's axis) or a prismatic joint (the offset along
 * it): an XPBD constraint towards the target with the drive's compliance and damping */
typedef enum {
    PBD_DRIVE_NONE = 0,
    PBD_DRIVE_POSITION, /* towards drive_target (rad, in [-pi, pi]; or m) */
    PBD_DRIVE_VELOCITY  /* towards a target moving at drive_target (rad/s or m/s) from the
                         * joint's coordinate when added */
} pbd_joint_drive;

typedef struct {
    pbd_joint_kind kind;
    int body[2];         /* two different bodies of the world (a fixed body anchors) */
    double anchor[2][3]; /* the joint point in each body's frame (m) */
    double axis[2][3];   /* hinge, ball with swing/twist limits: the axis in each body's
                          * frame (normalised when added); prismatic: axis[0], the slider's
                          * direction in body 1's frame (axis[1] unused) */
    double ref[2][3];    /* hinge, ball with a twist limit: a vector normal to the axis in
                          * each body's frame, the zero of the angle (made unit and normal) */
    double compliance;         /* positional, m/N */
    double angular_compliance; /* alignment, rad/(N m) */
    double damping;            /* velocity solve (Sec. 3.6): the joint points' relative velocity
                                * loses min(damping h, 1) of itself per substep (1/s) */
    double angular_damping;    /* the same for the relative angular velocity (1/s) */
    int has_limit;             /* hinge: lower <= angle <= upper (rad, in [-pi, pi]);
                                * prismatic: lower <= offset <= upper (m) */
    double lower, upper;
    /* ball (Sec. 3.4.2): the swing, the angle between the two bodies' axes, <= swing_limit
     * (rad, in [0, pi]); the twist, the angle of body 2's reference about the mean axis
     * relative to body 1's, in [twist_lower, twist_upper] (rad, within [-pi, pi]) */
    int has_swing_limit, has_twist_limit;
    double swing_limit, twist_lower, twist_upper;
    /* hinge, prismatic: a drive with compliance (rad/(N m) or m/N: the inverse stiffness)
     * and damping (N m s/rad or N s/m), XPBD's damped constraint (README "Drives") */
    pbd_joint_drive drive;
    double drive_target, drive_compliance, drive_damping;
    /* filled when added and per substep */
    double q_rel[4];  /* fixed, prismatic: body 1's orientation in body 2's frame at creation */
    double drive_at;  /* velocity drive: the moving target (rad or m) */
    double lambda[5]; /* positional, alignment, limit or swing, twist, drive: kg m, then
                       * kg m^2 for the angular ones (kg m for a prismatic limit and drive) */
} pbd_rigid_joint;

/* The hinge angle of body 2 relative to body 1 about body 1's axis (rad, in (-pi, pi]). */
double pbd_rigid_hinge_angle(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                             const pbd_rigid_body *b2);
/* The prismatic offset (p2 − p1)·a1 of the joint points along body 1's axis (m). */
double pbd_rigid_slider_offset(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                               const pbd_rigid_body *b2);
/* The ball joint's swing (the angle between the axes, in [0, pi]) and twist (rad, in
 * (-pi, pi]; 0 when the axes are opposite) as its limits read them (Sec. 3.4.2). */
void pbd_rigid_swing_twist(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                           const pbd_rigid_body *b2, double *swing, double *twist);

/* ---- the joint catalogue (joint_registry.c; README "Joint types") ----------------------- */

/* Which compliance of the joint a row's XPBD projection uses */
typedef enum {
    PBD_JOINT_ALPHA_NONE,       /* a hard limit: α = 0 */
    PBD_JOINT_ALPHA_POSITIONAL, /* compliance */
    PBD_JOINT_ALPHA_ANGULAR,    /* angular_compliance */
    PBD_JOINT_ALPHA_DRIVE       /* drive_compliance (and drive_damping) */
} pbd_joint_alpha;

/* One constraint of a joint's position solve. eval gives its value C(x1, q1, x2, q2) and its
 * generalized gradient grad = (∂C/∂x1, ∂C/∂θ1, ∂C/∂x2, ∂C/∂θ2), θ a world-frame rotation
 * vector (q ← normalize(exp(δθ/2)·q), as the rods' checker); it returns 0, or 1 when the row
 * is inactive there (a limit inside its range, a joint without the limit or drive, a
 * vanishing violation: C = 0 and grad = 0). project is its XPBD correction in the position
 * solve (Sec. 3.3), accumulating lambda[lambda]. */
typedef struct {
    const char *name;
    int lambda;
    pbd_joint_alpha alpha;
    int (*eval)(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                double *C, double grad[12]);
    void (*project)(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h);
} pbd_rigid_joint_row;

/* The coordinate a drive moves (the hinge angle, rad; the slider offset, m) */
typedef struct {
    double (*coordinate)(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                         const pbd_rigid_body *b2);
    int angular; /* 1: an angle, targets in [-pi, pi] and differences wrapped */
} pbd_rigid_joint_drive_type;

#define PBD_JOINT_MAX_ROWS 4

/* A joint type: its name; its up-front check (in: the joint as given, j: the copy to be kept,
 * whose axes it normalises; 0, or -1 with pbd_error naming the field, what was expected and
 * what was found); the rows of its position solve in order; its velocity-solve part (NULL:
 * none); the coordinate of its drive (NULL: it has no drive). */
typedef struct {
    const char *name;
    int (*check)(pbd_rigid_joint *j, const pbd_rigid_joint *in);
    int n_rows;
    const pbd_rigid_joint_row *rows[PBD_JOINT_MAX_ROWS];
    void (*solve_velocities)(const pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                             double h);
    const pbd_rigid_joint_drive_type *drive;
} pbd_rigid_joint_type;

/* The type of a joint kind, or NULL for a kind not in the table */
const pbd_rigid_joint_type *pbd_rigid_joint_type_of(pbd_joint_kind kind);
/* The table's kinds: 0 .. pbd_rigid_joint_type_count() − 1 */
int pbd_rigid_joint_type_count(void);

/* ---- contacts: with the ground plane n_g·x = ground_height and between bodies -------- */

typedef struct {
    int body[2];      /* body 1 and body 2 (-1: the ground) */
    double r[3];      /* the contact point in body 1's frame (m) */
    double r2[3];     /* the contact point in body 2's frame (m; unused for the ground) */
    double n[3];      /* world normal from body 2 towards body 1, fixed for the substep */
    double lambda_n;  /* normal, kg m (<= 0 in the paper's sign) */
    double lambda_t;  /* static friction, kg m */
} pbd_rigid_contact;

/* ---- the world ---------------------------------------------------------------------- */

typedef enum {
    PBD_RIGID_FRICTION_CONSISTENT = 0, /* Δv = min(w_t h μ_d |f_n|, |v_t|) (README errata) */
    PBD_RIGID_FRICTION_AS_PRINTED = 1  /* Δv = min(h μ_d |f_n|, |v_t|), the paper's */
} pbd_rigid_friction_form;

typedef struct {
    double dt;         /* s, one step */
    int substeps;      /* Algorithm 2's numSubsteps */
    int iterations;    /* numPosIters */
    double gravity[3]; /* m/s^2 */
    int ground;        /* 1: bodies with shapes collide with the plane n_g·x = ground_height */
    double ground_height;   /* m */
    double ground_normal[3]; /* n_g, unit (default +y; tilted: a ramp) */
    int body_contacts; /* 1: bodies with shapes collide with each other (default 1) */
    double watch_position; /* the divergence watchdog (0: off): a body farther than this ×
                            * max(L, 1 m) + |v0| t + |g| t²/2 from the initial centre (L the
                            * initial centres' bounding box's diagonal) stops the step */
    pbd_rigid_friction_form friction_form;
    int velocity_passes; /* passes of the contacts' velocity solve over the contacts (1: the
                          * paper's single pass; more: ours): dynamic friction in the first,
                          * the restitution's normal velocity in every one (README "Readings":
                          * a 5-box tower at 20 x 1 stands with 4) */
    int n_bodies, n_joints, n_contacts;
    pbd_rigid_body *bodies;
    pbd_rigid_joint *joints;
    pbd_rigid_contact *contacts; /* rebuilt every substep */
    int contact_capacity;
    int n_meshes;                         /* static triangle-mesh colliders */
    struct pbd_rigid_mesh_collider *meshes; /* private (solver/rigid/contact_mesh.c) */
    /* the watchdog's reference, taken at the first step */
    int watch_ready;
    double watch_centre[3], watch_extent, watch_speed, watch_time0;
    double time;
    long steps_done, substeps_done;
} pbd_rigid_world;

pbd_rigid_world *pbd_rigid_world_create(double dt, int substeps, int iterations);
void pbd_rigid_world_free(pbd_rigid_world *w);

/* Add a body with the shape, the mass (kg; 0: fixed), the pose x, q (q NULL: identity) and
 * ground friction/restitution 0. Its inertia is the shape's (pbd_rigid_shape_inertia).
 * Returns its index, or -1 with pbd_last_error() naming what is wrong. */
int pbd_rigid_add_body(pbd_rigid_world *w, const pbd_rigid_shape *s, double mass,
                       const double x[3], const double q[4]);
/* Add a body with explicit principal inertias (kg m^2, each > 0 and satisfying the
 * triangle inequality I_a <= I_b + I_c of a real mass distribution); shape as for contacts
 * (NULL: none). Returns its index or -1. */
int pbd_rigid_add_body_inertia(pbd_rigid_world *w, double mass, const double inertia[3],
                               const pbd_rigid_shape *s, const double x[3], const double q[4]);
/* Mass, centre of mass and inertia tensor of a closed triangle mesh of uniform density, by
 * its volume integrals (Eberly, "Polyhedral Mass Properties (Revisited)", 2002). */
typedef struct {
    double mass;          /* kg */
    double com[3];        /* the centre of mass in the mesh's frame (m) */
    double inertia[3][3]; /* about the centre of mass, in the mesh's frame (kg m^2) */
} pbd_rigid_mass_properties;
/* vertices: n_vertices × 3 (m); triangles: n_triangles × 3 vertex indices, counter-clockwise
 * seen from outside; density kg/m^3. PBD_EINVAL (naming the vertex, triangle or edge) for a
 * non-finite vertex, an index out of range or repeated in a triangle, an open surface, an
 * inconsistent orientation, a zero or negative volume (inside out) or a density <= 0. */
pbd_status pbd_rigid_mesh_mass_properties(const double *vertices, int n_vertices,
                                          const int *triangles, int n_triangles, double density,
                                          pbd_rigid_mass_properties *out);
/* The principal axes of the symmetric A: the unit quaternion q of R whose columns are the
 * axes and d the principal values, A = R diag(d) Rᵀ (Jacobi rotations) */
void pbd_rigid_principal_axes(const double A[3][3], double q[4], double d[3]);
/* Add a body of the mesh (as pbd_rigid_mesh_mass_properties) placed by x, q (the mesh's frame
 * to the world: p = x + R(q) v; q NULL: identity): its centre the mesh's centre of mass, its
 * frame the principal axes there (q_body = q q_principal), its inertia the mesh's. It has no
 * contact shape (mesh contacts are not implemented). Returns its index or -1. */
int pbd_rigid_add_body_mesh(pbd_rigid_world *w, const double *vertices, int n_vertices,
                            const int *triangles, int n_triangles, double density,
                            const double x[3], const double q[4]);
/* Add a static triangle-mesh collider (terrain, a ramp, a bowl; need not be closed): a fixed
 * body of shape PBD_RIGID_MESH whose surface is the triangles placed by x, q (p = x + R(q) v;
 * q NULL: identity), each with its front on the side of (v1 − v0) × (v2 − v0), counter-
 * clockwise seen from the front. Spheres, capsules and boxes collide with the front side
 * (README "Contacts"); m (NULL: zeros) is the collider's coefficients (a pair takes the means
 * of the two bodies'). The body stands at the centre of the placed vertices' bounding box,
 * turned as the world (q = 1); the vertices are copied. Refuses (PBD_EINVAL, naming the vertex
 * or triangle) fewer than 3 vertices or 1 triangle, a non-finite vertex, an index out of range,
 * a degenerate triangle (its vertices on a line), a non-finite pose or negative
 * coefficients. Returns the body's index or -1. */
int pbd_rigid_add_mesh_collider(pbd_rigid_world *w, const double *vertices, int n_vertices,
                                const int *triangles, int n_triangles, const double x[3],
                                const double q[4], const pbd_rigid_material *m);
/* The triangles of the mesh collider of body `body` whose bounding boxes overlap the world
 * box lo, hi (the broad phase's answer, from its bounding-volume tree), written to out (room
 * for all its triangles); their number, or -1 when the body is no mesh collider. */
int pbd_rigid_mesh_collider_query(const pbd_rigid_world *w, int body, const double lo[3],
                                  const double hi[3], int *out);
/* Add a joint (copied; axes and references normalised); refuses a joint of a body with
 * itself, between two fixed bodies, an unknown body, a zero axis or reference parallel to
 * the axis, negative compliance or damping, lower > upper, swing or twist limits outside
 * their ranges or on a joint other than the ball, a drive on a fixed or ball joint, negative
 * drive compliance or damping, a hinge's target angle outside [-pi, pi] (README
 * "Refusals"). Returns its index or -1. */
int pbd_rigid_add_joint(pbd_rigid_world *w, const pbd_rigid_joint *j);

/* One step of dt: Algorithm 2 with substeps × iterations. PBD_OK, PBD_ENUMERIC when a
 * body's state became non-finite or left the watchdog's bound (naming the body), PBD_ENOMEM
 * when the contacts do not fit in memory. */
pbd_status pbd_rigid_step(pbd_rigid_world *w);

/* ---- measures ----------------------------------------------------------------------- */

typedef struct {
    double momentum[3];         /* Σ m v, kg m/s */
    double angular_momentum[3]; /* Σ x × m v + R I Rᵀ ω about the origin, kg m^2/s */
    double kinetic_translational, kinetic_rotational, potential; /* J; potential −Σ m g·x */
} pbd_rigid_measures;

void pbd_rigid_measure(const pbd_rigid_world *w, pbd_rigid_measures *m);

/* ---- the corrections (paper Sec. 3.3), exposed for the tests --------------------------- */

/* The generalized inverse masses: w = 1/m + (r × n)ᵀ I⁻¹ (r × n) of a point at world offset
 * r from the centre along unit n (positional), w = nᵀ I⁻¹ n about unit n (angular). */
double pbd_rigid_inverse_mass_positional(const pbd_rigid_body *b, const double r[3],
                                         const double n[3]);
double pbd_rigid_inverse_mass_angular(const pbd_rigid_body *b, const double n[3]);
/* Remove the violation dx = p1 − p2 between the points at world offsets r1, r2 from the
 * bodies' centres (b2 may be NULL: the ground), with compliance alpha (m/N) over the
 * substep h, updating *lambda; returns Δλ (kg m). */
double pbd_rigid_correct_positional(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                                    const double r2[3], const double dx[3], double alpha,
                                    double h, double *lambda);
/* Remove the rotation dtheta (rad, world frame) of body 1 relative to body 2, compliance
 * alpha (rad/(N m)); returns Δλ (kg m^2). */
double pbd_rigid_correct_angular(pbd_rigid_body *b1, pbd_rigid_body *b2, const double dtheta[3],
                                 double alpha, double h, double *lambda);
/* Apply the velocity impulse p (kg m/s) at world offsets r1 to body 1 and −p at r2 to body 2
 * (b2 may be NULL). */
void pbd_rigid_apply_impulse(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                             const double r2[3], const double p[3]);
/* The closest point q of the triangle (a, b, c) to p by its Voronoi regions (Ericson,
 * Real-Time Collision Detection, Sec. 5.1.5); returns the region q lies in. */
typedef enum {
    PBD_TRIANGLE_FACE, PBD_TRIANGLE_VERTEX_A, PBD_TRIANGLE_VERTEX_B, PBD_TRIANGLE_VERTEX_C,
    PBD_TRIANGLE_EDGE_AB, PBD_TRIANGLE_EDGE_BC, PBD_TRIANGLE_EDGE_CA
} pbd_triangle_region;
pbd_triangle_region pbd_rigid_triangle_closest_point(const double p[3], const double a[3],
                                                     const double b[3], const double c[3],
                                                     double q[3]);
/* World-frame I⁻¹ a = R diag(inv_inertia) Rᵀ a, and I a likewise. */
void pbd_rigid_inv_inertia_apply(const pbd_rigid_body *b, const double a[3], double out[3]);
void pbd_rigid_inertia_apply(const pbd_rigid_body *b, const double a[3], double out[3]);

#ifdef __cplusplus
}
#endif

#endif
