/* A scene's size before it is built, from its parameters (pbd-run's up-front memory estimate,
 * pbd_memory_estimate_run). Upper counts where the exact one needs the mesh (the bag, the
 * beam's edges). */
#include "scene_private.h"

#include <math.h>
#include <string.h>

/* n_elem elements of `arity` particles, each `comp` constraints (or a material type's). */
static void add(pbd_memory_shape *s, double n_elem, const pbd_constraint_type *t, int comp)
{
    double rows = n_elem * (t->n_components > 0 ? t->n_components : comp);
    s->rows += rows;
    s->scalars += rows;
    s->indices += rows * t->arity;
    s->rest += rows * (t->n_rest > 0 ? t->n_rest : 1);
    s->pairs += rows * t->arity * t->arity;
}

/* A surface of nv vertices, ne edges, nt triangles, nh hinges: the stretch set, bending and
 * long-range attachments from `attached` particles. */
static void surface(pbd_memory_shape *s, const pbd_scene_params *sp, double nv, double ne,
                    double nt, double nh, int bending, int attached)
{
    s->n = nv;
    s->cells = 3 * nt;
    s->dim = 2;
    const pbd_constraint_type *membrane = pbd_scene_stretch_type(sp->stretch);
    if (membrane) add(s, nt, membrane, 1);
    else add(s, ne, &pbd_distance_type, 1);
    if (bending && sp->k_bend > 0.0) add(s, nh, &pbd_bend_dihedral_type, 1);
    if (sp->long_range_attachments) add(s, attached * nv, &pbd_long_range_attachment_type, 1);
}

/* The cloths of the contact scenes (scene_contact.c): an r × r grid with a distance row on
 * every edge, estimated as the plain cloth (their colliders and contacts are small beside it) */
static int contact_cloth(const char *name)
{
    return !strcmp(name, "cloth_sphere") || !strcmp(name, "cloth_ground_slide") ||
           !strcmp(name, "cloth_fold") || !strcmp(name, "rigid_coupling");
}

/* Whether the builder takes this resolution (the ranges of pbd_mesh_grid, the icosphere,
 * the bag, the beam, the fluid's block, the rod): a size it refuses is not estimated, so
 * that its exit status stays 2. */
static int scene_size_in_range(const char *name, double r)
{
    if (r < 2 && strcmp(name, "balloon") && strcmp(name, "tet_beam") && strcmp(name, "cloth_bag")
        && strcmp(name, "rod") && strcmp(name, "helix"))
        return 0;
    if (!strcmp(name, "cloth") || !strcmp(name, "cloth_bend") || !strcmp(name, "tear") ||
        contact_cloth(name))
        return r * r <= 1e8;
    if (!strcmp(name, "balloon")) return r >= 1 && r <= 6;
    if (!strcmp(name, "cloth_bag")) return r >= 1 && r <= 1000;
    if (!strcmp(name, "tet_beam")) {
        double ns = floor(r / 4) > 0 ? floor(r / 4) : 1;
        return r >= 1 && r * ns * ns <= 1e7;
    }
    if (!strcmp(name, "dam_break") || !strcmp(name, "fluid_rest")) return r <= 271;
    if (!strcmp(name, "rod") || !strcmp(name, "helix")) return r >= 1 && r <= 1e6;
    return 1;
}

int pbd_scene_shape(const pbd_scene_entry *e, const pbd_scene_params *sp, pbd_memory_shape *s)
{
    memset(s, 0, sizeof *s);
    if (sp->mesh_path || sp->tet_path) return 0; /* known once the file is read */
    const char *name = e->name;
    double r = sp->resolution > 0 ? sp->resolution : e->default_resolution;
    if (!scene_size_in_range(name, r)) return 0; /* the builder refuses it (exit 2) */
    if (!strcmp(name, "chain")) {
        s->n = r;
        s->dim = 2;
        add(s, r - 1, &pbd_distance_type, 1);
    } else if (!strcmp(name, "cloth") || !strcmp(name, "cloth_bend") || !strcmp(name, "tear") ||
               contact_cloth(name)) {
        /* r² vertices; per quad 3 edges (2 sides, a diagonal) and 2 triangles; every edge
         * not on the border a hinge */
        double ne = 3 * r * r - 4 * r + 1, nb = 4 * (r - 1);
        int bending = strcmp(name, "cloth") != 0 && !contact_cloth(name);
        surface(s, sp, r * r, ne, 2 * (r - 1) * (r - 1), ne - nb, bending, 2);
        if (!strcmp(name, "rigid_coupling")) s->n += 8; /* the body's corner particles */
        if (!strcmp(name, "tear")) { /* torn edges add particles and rows: twice as much */
            s->n *= 2;
            s->rows *= 2, s->scalars *= 2, s->indices *= 2, s->rest *= 2, s->pairs *= 2;
        }
    } else if (!strcmp(name, "cloth_bag")) {
        double q = (r + 1) * (r + 1); /* five faces of r² quads: at most 5 (r+1)² vertices */
        surface(s, sp, 5 * q, 15 * q, 10 * q, 15 * q, 1, 4);
    } else if (!strcmp(name, "balloon")) {
        double f = 20.0 * pow(4.0, r); /* icosphere of level r: 20·4^r faces */
        surface(s, sp, f / 2 + 2, 1.5 * f, f, 1.5 * f, 1, 1);
        s->rows += 1, s->scalars += 1, s->indices += s->n; /* the volume over all vertices */
        s->rest += 2, s->cells += 3 * f;
    } else if (!strcmp(name, "tet_beam")) {
        double ns = floor(r / 4) > 0 ? floor(r / 4) : 1, nv = (r + 1) * (ns + 1) * (ns + 1);
        double nt = sp->tets_per_cube * r * ns * ns;
        s->n = nv;
        s->cells = 4 * nt;
        s->dim = 3;
        const pbd_constraint_type *material = pbd_scene_material_type(sp->material);
        if (material) {
            add(s, nt, material, 1);
        } else {
            add(s, 7 * nv, &pbd_distance_type, 1); /* 3 axes, 3 face diagonals, 1 body */
            add(s, nt, &pbd_tet_volume_type, 1);
        }
    } else if (!strcmp(name, "dam_break") || !strcmp(name, "fluid_rest")) {
        double k = sp->fluid.max_neighbours + 2; /* one density row a particle, padded */
        s->n = r * r * r;
        s->dim = 3;
        s->rows = s->scalars = s->n;
        s->indices = s->n * k;
        s->rest = s->n * k;
    } else if (!strcmp(name, "rod") || !strcmp(name, "helix")) {
        s->n = r + 1;
        s->dim = 2;
        add(s, r, &pbd_rod_stretch_shear_type, 3);
        add(s, r, &pbd_rod_bend_twist_type, 3);
        s->n += 2 * r; /* the orientations' state */
    } else {
        return 0;
    }
    return 1;
}
