/* Private to solver/collision/: the collider shapes, contacts, self collision and rigid bodies
 * the room's files share (PBD Sec. 3.4, 4.2, 4.3). The public side is pbd_collision.h. */
#ifndef PBD_COLLIDE_H
#define PBD_COLLIDE_H

#include "constraints/vec3.h"
#include "pbd_collision.h"

#include <math.h>
#include <stdint.h>

/* ---- 3-vector helpers: constraints/vec3.h, plus a few the collision code needs ---------- */

static inline void cv_lerp(double *r, const double *a, const double *b, double t)
{
    for (int k = 0; k < 3; k++) r[k] = a[k] + t * (b[k] - a[k]);
}
/* r = M a and r = Mᵀ a for a row-major 3×3 matrix M */
static inline void cv_mat(double *r, const double *M, const double *a)
{
    double t0 = M[0] * a[0] + M[1] * a[1] + M[2] * a[2];
    double t1 = M[3] * a[0] + M[4] * a[1] + M[5] * a[2];
    double t2 = M[6] * a[0] + M[7] * a[1] + M[8] * a[2];
    r[0] = t0; r[1] = t1; r[2] = t2;
}
static inline void cv_mat_t(double *r, const double *M, const double *a)
{
    double t0 = M[0] * a[0] + M[3] * a[1] + M[6] * a[2];
    double t1 = M[1] * a[0] + M[4] * a[1] + M[7] * a[2];
    double t2 = M[2] * a[0] + M[5] * a[1] + M[8] * a[2];
    r[0] = t0; r[1] = t1; r[2] = t2;
}
/* Rotation matrix (row-major) of the unit quaternion q = (w, x, y, z). */
void cv_quat_to_matrix(const double q[4], double R[9]);

/* ---- shapes (solver/collision/collider_geometry.c, collider_mesh.c) ---------- */

typedef enum { SHAPE_PLANE, SHAPE_SPHERE, SHAPE_BOX, SHAPE_MESH } shape_kind;

/* A static triangle mesh: outward (front-side) unit normals; closed when every edge is
 * shared by exactly two triangles, and then it bounds a solid. */
typedef struct mesh_shape {
    int nv, nt;
    double *v;             /* nv × 3 */
    int32_t *t;            /* nt × 3 */
    double *tn;            /* nt × 3 unit normals, zero for a zero-area triangle */
    double *centroid;      /* nt × 3 */
    double lo[3], hi[3];   /* bounds */
    double max_radius;     /* max distance of a vertex from its triangle's centroid */
    int closed;
    double side_eps;        /* how far behind a triangle a ray may start (rounding) */
    pbd_spatial_hash *hash; /* of the centroids, built once */
    int32_t *cand;          /* nt candidates (scratch of a query) */
} mesh_shape;

/* One collision shape. Boxes (axis-aligned and oriented) are one kind: centre c, half
 * extents, and R whose rows are the box's axes in world coordinates (local = R (x - c)). */
typedef struct shape {
    shape_kind kind;
    double c[3];      /* plane: a point on it; sphere, box: centre */
    double n[3];      /* plane: unit normal, pointing out of the solid half-space */
    double radius;    /* sphere */
    double half[3];   /* box */
    double R[9];      /* box */
    mesh_shape *mesh; /* mesh */
} shape;

enum { CONTACT_NONE = 0, CONTACT_ENTRY = 1, CONTACT_INSIDE = 2, CONTACT_NEAR = 3 };

/* PBD Sec. 3.4 for one shape: CONTACT_ENTRY when the ray x -> p enters the solid (q = the
 * entry point q_c, n = the outward normal n_c there), CONTACT_INSIDE when the ray lies
 * completely inside (q = q_s, the surface point closest to p, n = n_s); otherwise, when p
 * ends outside but closer than margin > 0 to the surface, CONTACT_NEAR with q the surface
 * point closest to p and n the outward normal there (the tangent plane separates p from a
 * convex solid, so the row stays inactive unless the projection pushes p in); else
 * CONTACT_NONE. Never NaN: degenerate directions fall back to a documented choice. */
int shape_contact(const shape *s, const double x[3], const double p[3], double margin,
                  double q[3], double n[3]);
/* Signed distance of y from the surface (negative inside); for an open mesh, the
 * distance to the closest triangle signed by its front side. */
double shape_signed_distance(const shape *s, const double y[3]);
/* p inside a plane, sphere or box: onto its closest surface point, 1; else 0 (a mesh: 0) */
int shape_push_out(const shape *s, double p[3]);

int mesh_shape_contact(mesh_shape *m, const double x[3], const double p[3], double margin,
                       double q[3], double n[3]);
double mesh_shape_signed_distance(const mesh_shape *m, const double y[3]);
/* Builds a mesh shape (copies the arrays). NULL with pbd_error set on bad input. */
mesh_shape *mesh_shape_create(const double *verts, int nv, const int32_t *tris, int nt);
void mesh_shape_free(mesh_shape *m);

/* ---- colliders, rigid bodies, contacts (solver/collision/collision.c, rigid.c) --- */

/* A shape with a material; body >= 0 when it is the shape of rigid body `body`. */
typedef struct collider {
    shape shape;
    pbd_material mat;
    int body;
} collider;

/* Rigid body (PBD Sec. 4.2): state at the start of the (sub)step and the pose predicted
 * for its end, which the particles collide with. L is the angular momentum in world
 * coordinates (so that torque-free motion conserves it exactly); ω = I_w⁻¹ L. */
typedef struct rigid_body {
    int collider;
    double mass, inv_mass;
    double inv_inertia_body[3]; /* principal, body frame */
    double x[3], q[4];          /* pose at the start of the substep */
    double x_pred[3], q_pred[4];
    double v[3], L[3];
    int n_corners;              /* 8 for a box, 0 for a sphere */
    int first_proxy;            /* world particle of corner 0 (w = 0), -1 when none */
    double corner_local[8][3];
} rigid_body;

/* What velocityUpdate needs of a particle–shape contact: row r of the contact set. */
typedef struct contact_info {
    int32_t collider;
    double vn_pre; /* relative normal velocity of the predicted motion (< 0: approaching) */
} contact_info;

/* What velocityUpdate needs of a corner–triangle contact: row r of the corner set. */
typedef struct corner_info {
    int32_t body;
    double grad_q[3]; /* ∇_q C at the predicted positions (where the projection starts) */
} corner_info;

/* Self collision and corner tests need the cloth's triangles (PBD Sec. 4.2, 4.3). */
typedef struct cloth_tris {
    int nt;
    int32_t *t;              /* nt × 3 */
    int32_t *vt_start, *vt;  /* vertex -> triangles (CSR over the world's particles) */
    int vt_n;                /* particles covered by vt_start (n + 1 entries) */
    double mean_edge;
    int32_t *tri_stamp;      /* nt: dedup of a corner query */
    int stamp;
} cloth_tris;

struct pbd_collision_state {
    int n_colliders, cap_colliders;
    collider *colliders;
    int n_bodies, cap_bodies;
    rigid_body *bodies;
    /* the contact sets (indices into w->sets, -1 when absent) and their side tables */
    int contact_set, self_set, corner_set;
    contact_info *contact;   /* capacity of the contact set */
    corner_info *corner;     /* capacity of the corner set */
    int n_particles;         /* particle count the buffers are sized for */
    /* cloth triangles, self collision */
    cloth_tris *cloth;
    int self_enabled;
    double thickness;
    double margin;           /* contact margin (pbd_world_set_contact_margin) */
    pbd_spatial_hash *vhash; /* of the particles' predicted positions */
    int32_t *vcand;          /* n candidates (scratch) */
    int32_t *is_proxy;       /* n: 1 for a rigid body's corner particle */
    pbd_collision_stats stats;
    /* what the contacts did (pbd_world_contact_stats; contact_measure.c) */
    pbd_contact_stats cstats;
    long cstats_step;        /* w->step_count when the accumulating step began */
    int measure_crossings;
    int x_cap;               /* particles the crossing buffers hold */
    double *x_start;         /* x_cap × 3: positions at the substep's start */
    int32_t *xcand;          /* x_cap */
    pbd_spatial_hash *xhash; /* of the start positions */
};

/* The state, created on first use. NULL (with pbd_error) when out of memory. */
struct pbd_collision_state *collision_state(pbd_world *w);
/* Make the contact sets and the side tables hold one substep's contacts for the current
 * particle and collider counts. */
pbd_status collision_reserve(pbd_world *w);
/* Append a collider (the shape is copied; a mesh is owned from then on). Returns its
 * index or -1 (pbd_error set). */
int collision_add_collider(pbd_world *w, const shape *sh, const pbd_material *m, int body,
                           const char *what);
/* Box shape from centre, half extents and a (non-zero) quaternion; 0 or -1 (pbd_error). */
int collision_box_shape(shape *s, const double center[3], const double half[3],
                        const double q[4], const char *what);
/* Append a row to a contact set without checks (capacity reserved). Returns the row or -1
 * when the set is full (the contact is dropped and counted). */
int collision_push(pbd_world *w, int set, const int32_t *idx, const double *rest);

/* Rigid bodies (solver/collision/rigid.c). */
void rigid_predict(pbd_world *w, double h);           /* gravity, predicted pose, proxies */
void rigid_apply_impulse(rigid_body *b, const double J[3], const double at[3]);
/* Velocity of the body's material point at y, with the predicted pose. */
void rigid_point_velocity(const rigid_body *b, const double y[3], double v[3]);
/* Inverse effective mass of the body at y along unit direction d:
 * 1/M + (r×d)·I_w⁻¹ (r×d), r = y - x_pred. */
double rigid_inv_mass_at(const rigid_body *b, const double y[3], const double d[3]);
void rigid_commit(pbd_world *w);                      /* pose <- predicted pose */
/* Place the body's shape at its predicted pose. */
void rigid_update_shape(pbd_world *w, int body);
/* ω = I_w⁻¹ L with the orientation q. */
void rigid_omega(const rigid_body *b, const double q[4], double omega[3]);

/* Self collision and rigid corners against the cloth triangles
 * (solver/collision/collision_self.c). */
void collision_self_generate(pbd_world *w, double h);

/* The contact measures (contact_measure.c): contact_stats_begin at the start of each substep
 * (a new step resets the sums), contact_stats_end after the friction pass (penetration,
 * the crossings of the substep from x_start = x - h v taken before it). */
void contact_stats_begin(pbd_world *w);
void contact_crossings_start(pbd_world *w, double h);
void contact_stats_end(pbd_world *w);
void contact_measure_free(struct pbd_collision_state *cs);

/* Frees the colliders, bodies and the collision workspace (with the world). */
void collision_free(pbd_world *w);
/* Algorithm 1's lines 8 and 16 (collision_hooks.c). */
void collision_generate(pbd_world *w, double h);
void collision_velocity_update(pbd_world *w, double h);
/* The collision stages, installed in the world by collision_state(), with the solver
 * families' hooks (collision_families.c). */
extern const pbd_step_stages collision_stages;

#endif
