/* Private to solver/tearing/: the tearing state (tearing.c: storage, the pass, creation;
 * tearing_split.c: one vertex split, its fans and the constraints it rewrites). */
#ifndef PBD_TEAR_STATE_H
#define PBD_TEAR_STATE_H

#include "pbd_tearing.h"

struct pbd_tearing {
    double threshold;
    int max_splits;        /* per pass; 0 = one per vertex only */
    int share_triangles;   /* hand the torn triangles to the collision module */
    int dist_set, bend_set;
    struct {               /* triangles (particle indices), x = rest positions */
        int n_vertices, n_triangles;
        double *x;
        int32_t *tri;
    } mesh;
    int vert_cap;          /* capacity of mesh.x, head, mark */
    int32_t *head;         /* per vertex: its first corner, -1 when it has no triangle */
    int32_t *next;         /* per corner: the next corner of the same vertex, -1 */
    int32_t *mark;         /* per vertex: the pass that split or created it */
    int32_t *parent;       /* per vertex: the vertex it was split off (duplicated) from, or -1 */
    int pass;
    long splits, repairs;
    /* scratch, sized by the (fixed) triangle count nt: a fan has at most nt triangles */
    int32_t *fan;          /* the fan split_off works on */
    int32_t *fan2, *loc;   /* a fan being walked, and its vertices (3 each) as a split
                              would leave them */
    int32_t *ord, *comp;   /* that fan in walk order, the component of each walk slot */
    int32_t *copy, *copy_comp; /* a walked fan kept while others are walked */
    unsigned char *moved;  /* per triangle: goes to the duplicate in the split at hand */
    unsigned char *seen, *below; /* per fan slot */
    int32_t *cut;          /* vertices whose edge to v the split at hand cuts (<= 2 nt) */
    double *rest_buf;      /* one constraint's rest values */
    int rest_cap;
};

int tear_tri_has(const int32_t *tri, int32_t u);
int tear_same_vertices(const int32_t *a, const int32_t *b);
int tear_walk_fan(pbd_tearing *t, int k, int32_t cv, int *cycle);
int tear_load_fan(pbd_tearing *t, int u, int32_t v, int32_t d);
int tear_try_split(pbd_world *w, pbd_tearing *t, int32_t v, int32_t u);
pbd_status tear_repair(pbd_world *w, pbd_tearing *t, int32_t u);
int tear_split_off(pbd_world *w, pbd_tearing *t, int32_t v, int k);
pbd_status tear_reserve_rest(pbd_tearing *t, int n);
pbd_status tear_reserve_vertices(pbd_tearing *t, int n);

#endif
