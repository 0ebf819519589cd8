/* pbdlab — collisions: colliders (plane, sphere, boxes, triangle meshes), contacts with
 * friction and restitution, self collision of cloth, rigid bodies coupled to particles and
 * the spatial hash (solver/collision/; README there). */
#ifndef PBD_COLLISION_H
#define PBD_COLLISION_H

#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- collision, friction, rigid coupling ------------------------------------------- */

/* Colliders (PBD Sec. 3.4): each substep, generateCollisionConstraints tests every free
 * particle's ray x_i -> p_i against every collider and adds a plane_collision constraint
 * (k = 1, α = 0) to the world's contact set: at the entry point q_c with the surface normal
 * n_c when the ray enters the solid, at the surface point q_s closest to p_i with its
 * normal n_s when the ray lies completely inside. The contact sets are ordinary constraint
 * sets (created with the first collider, refilled every substep; add colliders after the
 * scene's own sets so that contacts are projected last in each sweep). velocityUpdate
 * (line 16) then applies restitution and Coulomb friction to every particle that had an
 * active contact (solver/collision/collision_hooks.c documents the model). */

/* Friction and restitution of a collider or rigid body. */
typedef struct pbd_material {
    double mu_static;   /* μs >= 0: the contact sticks while the tangential impulse needed
                           to stop it is <= μs × the normal impulse */
    double mu_kinetic;  /* μk >= 0: otherwise the tangential impulse is μk × the normal one */
    double restitution; /* e in [0, 1]: v_n <- -e v_n(approach) */
} pbd_material;

pbd_material pbd_material_default(void); /* frictionless (μs = μk = 0), e = 0 */

/* Static colliders; each returns the collider's index (>= 0) or -1 with pbd_last_error().
 * m == NULL means pbd_material_default(). */
/* Half-space (p - point)·normal < 0 is solid; normal need not be unit. */
int pbd_world_add_plane(pbd_world *w, const double point[3], const double normal[3],
                        const pbd_material *m);
int pbd_world_add_sphere(pbd_world *w, const double center[3], double radius,
                         const pbd_material *m);
/* Axis-aligned box [lo, hi]. */
int pbd_world_add_aabb(pbd_world *w, const double lo[3], const double hi[3],
                       const pbd_material *m);
/* Oriented box: centre, half extents, orientation q = (w, x, y, z) (normalized here). */
int pbd_world_add_obb(pbd_world *w, const double center[3], const double half[3],
                      const double q[4], const pbd_material *m);
/* Static triangle mesh (nv vertices, nt triangles, counter-clockwise seen from the free
 * side: the normal (v1-v0)×(v2-v0) points out). A ray crossing a triangle from its front
 * side enters it; a closed mesh (every edge in exactly two triangles) also bounds a solid,
 * so a ray completely inside it gets the closest surface point. Zero-area triangles are
 * ignored. Intended for small meshes: the inside test is O(nt). */
int pbd_world_add_mesh_collider(pbd_world *w, const double *verts, int nv,
                                const int32_t *tris, int nt, const pbd_material *m);

/* Contact margin m >= 0 (default 0, the paper's test): a particle whose predicted position
 * p ends outside a collider but closer than m to it also gets a plane_collision row, at the
 * surface point closest to p with the outward normal there. The row is inactive unless the
 * projection (other constraints: cloth pulled against a body, a particle leaving a body it
 * started in) pushes the particle in; then it stops it at the surface. A fraction of the
 * cloth's edge length is a good value. */
pbd_status pbd_world_set_contact_margin(pbd_world *w, double margin);

/* Contact of the ray x -> p with collider c (PBD Sec. 3.4): 0 none, 1 the ray enters (q =
 * q_c, n = n_c), 2 the ray lies inside (q = q_s closest to p, n = n_s), 3 p ends outside
 * within the contact margin (q closest to p, n outward); -1 bad index. */
int pbd_collider_query(pbd_world *w, int c, const double x[3], const double p[3], double q[3],
                       double n[3]);
/* Signed distance of y from collider c's surface (negative inside). */
double pbd_collider_distance(pbd_world *w, int c, const double y[3]);

/* The cloth's triangles (3 particle indices each, copied): used by self collision and by
 * the rigid bodies' corner tests. Replaces an earlier list. */
pbd_status pbd_world_set_cloth_triangles(pbd_world *w, const int32_t *tris, int n_tris);
/* Self collision (PBD Sec. 4.3) of every free particle against these triangles with cloth
 * thickness h > 0: a spatial hash with cells of the mean edge length finds vertex–triangle
 * pairs; a vertex that moves through a triangle, or ends over it closer than 2h + d_max
 * (d_max the substep's largest displacement: a detection margin), gets a self_collision
 * constraint {h, sign} that keeps it h away on the side it came from (Eq. 12 or 13). */
pbd_status pbd_world_enable_self_collision(pbd_world *w, const int32_t *tris, int n_tris,
                                           double thickness);

/* Rigid bodies (PBD Sec. 4.2): a sphere or box with mass, inertia, pose and velocity,
 * integrated with each substep (gravity, symplectic Euler; torque-free rotation conserves
 * the angular momentum L exactly). Particles collide with it like with a static collider,
 * against its predicted pose, which stays fixed during the projection; each contact's
 * impulse (the projection's m_i Δp_i / Δt = λ n / Δt, then the restitution and friction
 * impulses) acts back on the body, which therefore reacts one substep late, like an explicit
 * force (at rest it ends a step with v = +g Δt that the next substep's gravity removes). The
 * reactions are applied where the particle's own x × m v changes, so linear and angular
 * momentum are exchanged exactly (solver/collision/collision_hooks.c). A box's 8 corners are also
 * tested against the cloth triangles (point_triangle constraints): they become 8
 * kinematic particles (w = 0) appended to the world, so w->n grows by 8 per box. Bodies do
 * not collide with static colliders or with each other. A body pressed into cloth that
 * cannot give way (pulled taut between attachments) is thrown back: cloth with slack and a
 * contact margin behave. */
typedef struct pbd_rigid_state {
    double x[3];     /* centre of mass, m */
    double q[4];     /* orientation (w, x, y, z), unit */
    double v[3];     /* m/s */
    double omega[3]; /* rad/s, world frame */
} pbd_rigid_state;

int pbd_world_add_rigid_sphere(pbd_world *w, double radius, double mass,
                               const pbd_rigid_state *s, const pbd_material *m);
int pbd_world_add_rigid_box(pbd_world *w, const double half[3], double mass,
                            const pbd_rigid_state *s, const pbd_material *m);
int pbd_world_rigid_count(const pbd_world *w);
pbd_status pbd_world_rigid_get(const pbd_world *w, int body, pbd_rigid_state *s);
pbd_status pbd_world_rigid_set(pbd_world *w, int body, const pbd_rigid_state *s);
/* Mass of body and its collider index. */
double pbd_world_rigid_mass(const pbd_world *w, int body);
int pbd_world_rigid_collider(const pbd_world *w, int body);
/* Linear and angular momentum (about the origin) of the free particles and the bodies. */
void pbd_world_total_momentum(const pbd_world *w, double lin[3], double ang[3]);

/* What the last substep's collision detection produced. */
typedef struct pbd_collision_stats {
    int contact_set, self_set, corner_set; /* indices into w->sets, -1 when absent */
    int contacts;      /* particle–collider contacts (plane_collision rows) */
    int self_contacts; /* self_collision rows */
    int corner_contacts; /* rigid corner – cloth triangle rows (point_triangle) */
    long dropped;      /* contacts dropped because a set was full, since creation */
} pbd_collision_stats;
pbd_collision_stats pbd_world_collision_stats(const pbd_world *w);

/* What the contacts did in the last step (the step's velocityUpdate stages fill it; PBD
 * Sec. 3.4 for the rows, collision_hooks.c for the friction and restitution model). The
 * per-row numbers describe the step's last substep; the impulses add up its substeps. */
typedef struct pbd_contact_stats {
    long step;             /* the world's step_count after the step described; 0: none yet */
    int contacts;          /* particle–collider rows (plane_collision) of the last substep */
    int active;            /* of those, rows whose projection pushed the particle (λ > 0) */
    int sticking, sliding; /* active rows the friction pass left without tangential relative
                            * velocity (static friction, or kinetic friction that stopped it;
                            * a row at tangential rest counts too) / still sliding */
    double penetration_max, penetration_mean; /* m: max(0, -d) with d the signed distance
                            * from a collider after the substep: the max over every particle
                            * (a rigid body's corners aside) and every plane, sphere and box,
                            * and over the rows' particles and their colliders (meshes too);
                            * the mean over the rows; NaN when there is no row */
    double impulse_normal;     /* N s: sum over the substeps and active rows of λ/Δt + j_n */
    double impulse_tangential; /* N s: sum of the friction impulses j_t */
    int self_contacts;     /* self_collision rows of the last substep */
    long self_crossings;   /* vertex–triangle pairs of the cloth triangles whose vertex passed
                            * through the triangle in a substep, summed over the step; -1 when
                            * not measured (pbd_world_measure_self_crossings) */
} pbd_contact_stats;
pbd_contact_stats pbd_world_contact_stats(const pbd_world *w);
/* Measure self_crossings from now on (on = 1) against the cloth triangles
 * (pbd_world_set_cloth_triangles first): every substep, each vertex's path and each
 * triangle's corners are interpolated linearly in time and the cubic det(b-a, c-a, q-a)(t)
 * is searched for a sign change with the vertex over the triangle there (PBD Sec. 4.3's
 * claim that no vertex passes through the cloth, checked apart from the detection). Sized for
 * the world's particles now (call after adding bodies); costs about one self-collision pass
 * per substep. */
pbd_status pbd_world_measure_self_crossings(pbd_world *w, int on);

/* Spatial hash (Teschner et al. 2003; PBD Sec. 4.3): points hashed by their cubic cell of
 * edge cell_size into a table of about 2 × max_points buckets; a box query returns exactly
 * the points inside the box, each once. Building and querying allocate nothing. */
typedef struct pbd_spatial_hash pbd_spatial_hash;
pbd_spatial_hash *pbd_spatial_hash_create(int max_points, double cell_size);
void pbd_spatial_hash_free(pbd_spatial_hash *h);
/* Cell edge > 0 and finite; PBD_EINVAL otherwise. */
pbd_status pbd_spatial_hash_set_cell_size(pbd_spatial_hash *h, double cell_size);
double pbd_spatial_hash_cell_size(const pbd_spatial_hash *h);
/* Hash n <= max_points points: point k is pts[3 id_k ..] with id_k = ids[k] (or k when ids
 * is NULL); queries return the ids. */
pbd_status pbd_spatial_hash_build(pbd_spatial_hash *h, const double *pts, const int32_t *ids,
                                  int n);
/* The ids of the points inside the closed box [lo, hi], each once: writes at most max_out
 * of them to out and returns how many there are. */
int pbd_spatial_hash_query(pbd_spatial_hash *h, const double lo[3], const double hi[3],
                           int32_t *out, int max_out);
/* Mean edge length of a triangle list (each interior edge counted twice); 0 if none. */
double pbd_mean_edge_length(const double *x, const int32_t *tris, int n_tris);

#ifdef __cplusplus
}
#endif

#endif
