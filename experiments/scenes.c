/* Built-in scenes: a hanging chain and a cloth grid pinned at two corners. */
#include "pbd_experiments.h"

#include <string.h>

pbd_scene_params pbd_scene_params_default(void)
{
    pbd_scene_params sp = {
        .resolution = 0, /* 0: the scene's default */
        .size = 1.0,
        .total_mass = 1.0,
        .stiffness = 1.0,
        .compliance = 0.0,
        .seed = 1,
    };
    return sp;
}

static int add_distance(pbd_world *w, int set, int a, int b, const pbd_scene_params *sp)
{
    int32_t idx[2] = {a, b};
    return pbd_set_add(w, set, idx, NULL, sp->stiffness, sp->compliance);
}

pbd_world *pbd_scene_chain(const pbd_scene_params *sp)
{
    int n = sp->resolution > 1 ? sp->resolution : 20;
    pbd_world *w = pbd_world_create(n);
    if (!w) return NULL;
    double seg = sp->size / (n - 1), m = sp->total_mass / n;
    for (int i = 0; i < n; i++) {
        double x[3] = {0.0, -seg * i, 0.0};
        pbd_world_set_particle(w, i, x, NULL, m);
    }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int i = 0; i + 1 < n; i++)
        if (add_distance(w, set, i, i + 1, sp) < 0) goto fail;
    pbd_world_attach(w, 0);
    return w;
fail:
    pbd_world_free(w);
    return NULL;
}

pbd_world *pbd_scene_cloth(const pbd_scene_params *sp)
{
    int r = sp->resolution > 1 ? sp->resolution : 16;
    pbd_world *w = pbd_world_create(r * r);
    if (!w) return NULL;
    double h = sp->size / (r - 1), m = sp->total_mass / (r * r);
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            double x[3] = {h * i, -h * j, 0.0};
            pbd_world_set_particle(w, j * r + i, x, NULL, m);
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    /* edges of the triangulation: horizontal, vertical and one diagonal per quad */
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            int v = j * r + i;
            if (i + 1 < r && add_distance(w, set, v, v + 1, sp) < 0) goto fail;
            if (j + 1 < r && add_distance(w, set, v, v + r, sp) < 0) goto fail;
            if (i + 1 < r && j + 1 < r && add_distance(w, set, v, v + r + 1, sp) < 0) goto fail;
        }
    pbd_world_attach(w, 0);
    pbd_world_attach(w, r - 1);
    return w;
fail:
    pbd_world_free(w);
    return NULL;
}

static const pbd_scene_entry scenes[] = {
    {"chain", "hanging chain, top particle attached", pbd_scene_chain, 20},
    {"cloth", "cloth grid hanging from its two top corners", pbd_scene_cloth, 16},
};

int pbd_scene_count(void) { return (int)(sizeof scenes / sizeof scenes[0]); }

const pbd_scene_entry *pbd_scene_at(int i)
{
    return (i >= 0 && i < pbd_scene_count()) ? &scenes[i] : NULL;
}

const pbd_scene_entry *pbd_scene_find(const char *name)
{
    for (int i = 0; i < pbd_scene_count(); i++)
        if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
    return NULL;
}
