/* pbdlab — the standard scenes pbd-run steps (experiments/scenes/). */
#ifndef PBD_SCENES_H
#define PBD_SCENES_H

#include "experiments/mesh/pbd_mesh.h"
#include "solver/fluid/pbd_fluid.h"
#include "solver/pbd.h"
#include "solver/rigid/pbd_rigid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scenes ------------------------------------------------------------------------ */

typedef struct pbd_scene_params {
    int resolution;     /* particles along the chain, or the cloth grid's side */
    double size;        /* m: chain length or cloth side */
    double total_mass;  /* kg */
    double stiffness;   /* PBD k of every constraint */
    double compliance;  /* XPBD α of every constraint */
    unsigned long seed;
    /* mesh scenes */
    int diagonal;            /* pbd_diagonal of the generated cloth grid and bag */
    double k_bend;           /* PBD stiffness of the bending constraints */
    double bend_compliance;  /* XPBD α of the bending constraints */
    double k_pressure;       /* balloon overpressure factor (PBD Eq. 14) */
    int tets_per_cube;       /* tet_beam: 5 or 6 */
    const char *mesh_path;   /* --mesh: OBJ surface replacing the generated one */
    const char *tet_path;    /* --tet: TetGen .node (+ .ele) replacing the generated tets */
    double tear_threshold;   /* tear scene: relative stretch at which an edge tears; 0 = off */
    /* materials (experiments/scenes/scene_materials.c) */
    int material;            /* tet_beam: index into pbd_material_names (0 = distance-volume) */
    double youngs_modulus;   /* E of the materials: Pa for tets, N/m (E·thickness) for cloth */
    double poisson_ratio;    /* ν in (-1, 0.5] (0.5 only for neo-hookean: incompressible) */
    int stretch;             /* cloth scenes: index into pbd_stretch_names (0 = distance) */
    int long_range_attachments; /* cloth scenes: 1 adds them from every attached particle */
    /* fluids (experiments/scenes/scene_fluid.c): the fluid's definition; h and
     * the box are set by the scene from size and resolution */
    pbd_fluid_def fluid;
    double rod_radius;       /* rod, helix: the circular cross section's radius in m */
    /* contact scenes (experiments/scenes/scene_contact.c; PBD Sec. 3.4, 4.2, 4.3) */
    double mu_static, mu_kinetic, restitution; /* every collider's and body's pbd_material */
    double contact_margin;   /* m (pbd_world_set_contact_margin) */
    double sphere_radius;    /* cloth_sphere: the fixed sphere's radius in m */
    int self_collision;      /* cloth_fold: 1 on, 0 off */
    double thickness;        /* cloth_fold: self-collision thickness h in m; 0: a quarter of
                              * the mean edge */
    const char *collider_path; /* --collider: a static mesh collider from an OBJ file */
    double launch_speed;     /* cloth_ground_slide: initial speed along the ground, m/s */
    double drop_height;      /* cloth_ground_slide: initial height over the ground, m */
    double ramp_angle;       /* cloth_ground_slide: the ground's slope in degrees */
    int body;                /* rigid_coupling: 0 box, 1 sphere */
    double body_mass, body_size, body_speed; /* kg; half side or radius in m; m/s downward */
    int pin_corners;         /* rigid_coupling: 1 the cloth's corners held (a hammock) */
    int velocity_passes;     /* rigid contact scenes: the pbd_rigid_world's velocity_passes */
    const char *pin;         /* --pin: the mesh scenes' pinned vertices in place of their own
                              * (scene_pin.c): "0,5,17", "box:x0,y0,z0,x1,y1,z1", "top",
                              * "boundary"; NULL: the scene's */
} pbd_scene_params;

pbd_scene_params pbd_scene_params_default(void);

/* --material of tet_beam: "distance-volume" (distance on every edge + tet_volume per tet, the
 * default), "neo-hookean" (snh_tet), "stvk" (fem_tet_stvk), "corotated" (fem_tet_corotated),
 * "strain" (strain_tet), "strain-normalized"; --stretch of the cloth scenes: "distance" (every
 * edge), "fem" (fem_triangle), "strain" (strain_triangle). NULL-terminated. The materials take
 * their XPBD compliance from E and ν (pbd_constraint_type.material): use --method=xpbd. */
extern const char *const pbd_material_names[];
extern const char *const pbd_stretch_names[];
/* The constraint type of a material or stretch index (NULL for 0 and out of range). */
const pbd_constraint_type *pbd_scene_material_type(int material);
const pbd_constraint_type *pbd_scene_stretch_type(int stretch);

/* Hanging chain along -y with particle 0 attached at the origin. */
pbd_world *pbd_scene_chain(const pbd_scene_params *sp);
/* Cloth grid of resolution × resolution particles in the x–y plane, hanging from its two
 * top corners; stretch (distance) constraints on every triangle edge. */
pbd_world *pbd_scene_cloth(const pbd_scene_params *sp);
/* The cloth grid laid horizontal (x–z plane), hanging from the same two corners, plus a
 * bend_dihedral constraint (stiffness k_bend) on every interior edge. */
pbd_world *pbd_scene_cloth_bend(const pbd_scene_params *sp);
/* A beam of tets (or --tet), distance on every edge and tet_volume per tet (or --material's
 * constraints per tet), the end at the smallest x attached (cantilever); masses lumped by tet
 * volume. */
pbd_world *pbd_scene_tet_beam(const pbd_scene_params *sp);
/* An icosphere (level = resolution, diameter size) or a closed --mesh: distances, bending
 * and the balloon_volume constraint with k_pressure; hangs from its top vertex. */
pbd_world *pbd_scene_balloon(const pbd_scene_params *sp);
/* The open cloth bag (PBD Fig. 3): distances and bending, hung from its rim's 4 corners. */
pbd_world *pbd_scene_cloth_bag(const pbd_scene_params *sp);

/* Contact scenes (experiments/scenes/scene_contact.c): colliders with the material
 * {mu_static, mu_kinetic, restitution}, a contact margin, the cloth's triangles measured for
 * self crossings (pbd_world_measure_self_crossings); --collider=FILE.obj adds a static mesh
 * collider (in cloth_sphere it replaces the sphere).
 * cloth_sphere: a horizontal cloth falling onto a fixed sphere resting on the ground.
 * cloth_ground_slide: a cloth lying on the ground (a ramp of ramp_angle degrees, drop_height
 * above it) launched at launch_speed down the slope (along +x on flat ground).
 * cloth_fold: a towel over a rail: a horizontal cloth held along its middle row folds down
 * under gravity, the halves meeting face to face; self collision (thickness) on or off.
 * rigid_coupling: a rigid box or sphere dropped onto a cloth hammock (corners held, 15 %
 * slack) or, with pin_corners = 0, onto a free cloth (two-way coupling, PBD Sec. 4.2). */
pbd_world *pbd_scene_cloth_sphere(const pbd_scene_params *sp);
pbd_world *pbd_scene_cloth_ground_slide(const pbd_scene_params *sp);
pbd_world *pbd_scene_cloth_fold(const pbd_scene_params *sp);
pbd_world *pbd_scene_rigid_coupling(const pbd_scene_params *sp);
extern const char *const pbd_body_names[]; /* "box", "sphere" */

/* Position Based Fluids (solver/fluid/): a block of resolution³ particles (spacing d =
 * size/resolution, h = 2d, m giving the lattice density ρ0) released in the corner of a box of
 * 4 × 2 × 1 sizes (dam_break), or filling the floor of a box of 1 × 2 × 1 sizes (fluid_rest, a
 * column at rest). Default resolution 22 (10648 particles). */
pbd_world *pbd_scene_dam_break(const pbd_scene_params *sp);
pbd_world *pbd_scene_fluid_rest(const pbd_scene_params *sp);

typedef struct pbd_scene_entry {
    const char *name;
    const char *description;
    pbd_world *(*build)(const pbd_scene_params *sp);
    int default_resolution;
} pbd_scene_entry;

/* The cells a scene was built on (its result file's /scene/triangles or /scene/tets and
 * the XDMF sidecar's cells): surface triangles and tetrahedra in particle indices. */
typedef struct pbd_scene_cells {
    int32_t *triangles; /* 3 per triangle, malloc'd, or NULL */
    int n_triangles;
    int32_t *tets;      /* 4 per tet, malloc'd, or NULL */
    int n_tets;
} pbd_scene_cells;
/* e->build(sp), and when cells != NULL a copy of the scene's triangles and tets (zeroed
 * first; free with pbd_scene_cells_free). NULL with pbd_last_error() as e->build. */
pbd_world *pbd_scene_build(const pbd_scene_entry *e, const pbd_scene_params *sp,
                           pbd_scene_cells *cells);
void pbd_scene_cells_free(pbd_scene_cells *cells);

int pbd_scene_count(void);
const pbd_scene_entry *pbd_scene_at(int i);
const pbd_scene_entry *pbd_scene_find(const char *name);
/* NULL when scene e, built with sp and stepped with `method` (pbd_method), `reference` != 0
 * when the Newton reference also solves each step (it reads the compliances), reads the scene
 * option `option` (a pbd_scene_options row's name, e.g. "youngs-modulus"); otherwise why it
 * cannot act there, one phrase (experiments/scenes/scene_reads.c). Programs refuse such an
 * option when it is given (cli_given), exit status 2. */
const char *pbd_scene_unread(const pbd_scene_entry *e, const pbd_scene_params *sp, int method,
                             int reference, const char *option);

/* The size of the world e would build with sp, before building it (its particles, rows,
 * indices, cells; experiments/scenes/scene_memory.c): 1, or 0 when it is known only from
 * the mesh file (--mesh, --tet) or for a scene it does not know. */
int pbd_scene_shape(const pbd_scene_entry *e, const pbd_scene_params *sp, pbd_memory_shape *s);

/* ---- Cosserat rods (experiments/scenes/scene_rod.c) --------------------------------- */

/* One rod: segments + 1 particles on the centre line (masses ρ A ℓ, half at the ends), one
 * orientation per segment (inverse inertias 1/(ρ ℓ (I, I, J)), d_3 along the segment), three
 * rod_stretch_shear rows per segment and three rod_bend_twist rows per pair of segments, with
 * XPBD compliances from E, G and the circular cross section (A = πr², I = πr⁴/4, J = 2I) and
 * PBD stiffnesses k_stretch, k_bend. The rest shape is the built one. */
typedef struct pbd_rod_spec {
    int segments;
    double length, radius, density;        /* m, m, kg/m³ */
    double youngs_modulus, shear_modulus;  /* Pa */
    double helix_radius, helix_pitch;      /* m; 0: straight along +x, else a helix about −y */
    double twist;                          /* rad/m: the material frame's rest twist */
    int clamp;                             /* 1: particle 0 and orientation 0 fixed */
    double k_stretch, k_bend;              /* PBD stiffness in [0, 1] */
    double origin[3];                      /* m: where particle 0 sits */
    double inertia_scale;                  /* the orientations' inertia × this (1: the cross
                                            * section's; a static solve may raise it: the
                                            * equilibrium does not depend on it) */
} pbd_rod_spec;
/* What pbd_rod_add added: the first particle and orientation, the two sets (bend_set -1
 * for a single segment). */
typedef struct pbd_rod_handles {
    int particle0, orient0, stretch_set, bend_set;
} pbd_rod_handles;
pbd_rod_spec pbd_rod_spec_default(void);
/* Add the rod to w; PBD_EINVAL (one line naming the field) for a bad spec. */
pbd_status pbd_rod_add(pbd_world *w, const pbd_rod_spec *r, pbd_rod_handles *h);
/* Scenes: a horizontal cantilever along +x clamped at particle 0 (position and orientation
 * of the first segment held), and a helix hanging about −y (radius 0.1 L, pitch 0.2 L, the
 * material frame twisted by π over the rod) clamped at its top. --size, --resolution
 * (segments), --mass, --rod-radius, --youngs-modulus, --poisson-ratio, --stiffness, --k-bend. */
pbd_world *pbd_scene_rod(const pbd_scene_params *sp);
pbd_world *pbd_scene_helix(const pbd_scene_params *sp);

/* Cloth torn apart: the cloth scene's grid (vertical, x–y plane, bulged by 1 % of its size
 * along z; or --mesh) with bending (k_bend) on its hinges, held by its top row except the
 * row's middle vertex; the left
 * part of the row moves towards -x and the right part towards +x at 0.5 m/s each for 1 m
 * (2 s), then holds; edges tear beyond tear_threshold (0: off), starting at the free middle
 * vertex. */
pbd_world *pbd_scene_tear(const pbd_scene_params *sp);

/* ---- rigid scenes (experiments/scenes/scene_rigid.c) -------------------------------- */

/* A scene of rigid bodies: pbd-run steps it with the rigid solver (XPBD only) and logs it
 * through a stand-in particle world (experiments/log/pbd_log_rigid.h). build takes the
 * step's dt, substeps and iterations; reads lists the scene options it reads (names
 * separated by spaces): pbd-run refuses any other given one. */
typedef struct pbd_rigid_scene_entry {
    const char *name;
    const char *description;
    pbd_rigid_world *(*build)(const pbd_scene_params *sp, double dt, int substeps,
                              int iterations);
    const char *reads;
    int default_resolution;
} pbd_rigid_scene_entry;
int pbd_rigid_scene_count(void);
const pbd_rigid_scene_entry *pbd_rigid_scene_at(int i);
const pbd_rigid_scene_entry *pbd_rigid_scene_find(const char *name);
/* 1 when the scene reads the scene option (its row's name, e.g. "mu-static") */
int pbd_rigid_scene_reads(const pbd_rigid_scene_entry *e, const char *option);

/* The builders the scenes and the experiments share. A chain of n box links (half extents
 * PBD_RIGID_LINK_HALF_WIDTH × l/2 × PBD_RIGID_LINK_HALF_WIDTH m, mass kg each) on hinges
 * about z, hanging from a fixed body at the origin (body 0; link i is body i + 1) at angles
 * th[i] from −y; NULL with pbd_last_error(). */
#define PBD_RIGID_LINK_HALF_WIDTH 0.05
pbd_rigid_world *pbd_rigid_chain_world(int n, double l, double mass, const double *th,
                                       double dt, int substeps, int iterations);
/* n boxes of half extents half and mass kg stacked from base (the lowest box's bottom centre)
 * up +y, touching; a pyramid of rows rows of such boxes on y = 0 centred on x = 0, gap m
 * between neighbours of a row. mat (NULL: none) sets each box's coefficients. Return the
 * first box's index or -1. */
int pbd_rigid_add_stack(pbd_rigid_world *w, int n, const double half[3], double mass,
                        const double base[3], const pbd_rigid_material *mat);
int pbd_rigid_add_pyramid(pbd_rigid_world *w, int rows, const double half[3], double mass,
                          double gap, const pbd_rigid_material *mat);
/* A box (half extents, mass, coefficients mat) resting on the ground plane through the origin
 * tilted by theta rad about z (normal (sin θ, cos θ, 0); down the slope is +x), launched down
 * the slope at speed m/s; body 0. NULL with pbd_last_error(). */
pbd_rigid_world *pbd_rigid_ramp_world(double theta, const double half[3], double mass,
                                      const pbd_rigid_material *mat, double speed, double dt,
                                      int substeps, int iterations);
/* A bowl: the spherical cap of the given radius from its bottom (at the origin; the sphere's
 * centre at (0, radius, 0)) up to the rim's angle rim (rad) from the bottom, of segments
 * around and rings up, as a static mesh collider facing the centre with coefficients mat.
 * Returns the collider's body or -1. */
int pbd_rigid_add_bowl(pbd_rigid_world *w, double radius, int segments, int rings, double rim,
                       const pbd_rigid_material *mat);

#ifdef __cplusplus
}
#endif

#endif
