/* Which scene parameters a scene reads, so that a program refuses a given option that cannot
 * act, with the reason, instead of ignoring it (experiments/README.md "Meshes and scenes"). One row per scene lists the options its builder reads at all; the rules
 * below it say when a listed one still cannot act (a loaded mesh replaces the generated one;
 * E and ν belong to a material; a material's compliance comes from E and ν; PBD's motion does
 * not depend on E). */
#include "pbd_scenes.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *scene;
    const char *reads; /* space separated, with a space at both ends */
} table[] = {
    {"chain", " stiffness compliance resolution size mass "},
    {"cloth", " stiffness compliance resolution size mass diagonal mesh stretch youngs-modulus "
              "poisson-ratio long-range-attachments "},
    {"cloth_bend", " stiffness compliance resolution size mass diagonal mesh stretch "
                   "youngs-modulus poisson-ratio long-range-attachments k-bend bend-compliance "},
    {"tet_beam", " stiffness compliance resolution size mass tets-per-cube tet material "
                 "youngs-modulus poisson-ratio "},
    {"balloon", " stiffness compliance resolution size mass mesh stretch youngs-modulus "
                "poisson-ratio long-range-attachments k-bend bend-compliance k-pressure "},
    {"cloth_bag", " stiffness compliance resolution size mass diagonal mesh stretch "
                  "youngs-modulus poisson-ratio long-range-attachments k-bend bend-compliance "},
    {"tear", " stiffness compliance resolution size mass diagonal mesh k-bend bend-compliance "
             "tear-threshold "},
};

/* option is one of the words of list (" a b c ") */
static int in_list(const char *option, const char *list)
{
    char word[80];
    if (snprintf(word, sizeof word, " %s ", option) >= (int)sizeof word) return 0;
    return strstr(list, word) != NULL;
}

const char *pbd_scene_unread(const pbd_scene_entry *e, const pbd_scene_params *sp, int method,
                             const char *option)
{
    static char why[512];
    const char *reads = NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].scene, e->name) == 0) reads = table[i].reads;
    if (!reads) return NULL; /* a scene without a row is not checked */
    if (!in_list(option, reads)) {
        snprintf(why, sizeof why, "scene %s does not read it (it reads:%.*s)", e->name,
                 (int)strlen(reads) - 1, reads);
        return why;
    }
    if (sp->mesh_path && in_list(option, " resolution size diagonal "))
        return "--mesh replaces the generated surface it shapes";
    if (sp->tet_path && in_list(option, " resolution size tets-per-cube "))
        return "--tet replaces the generated tets it shapes";
    const pbd_constraint_type *mat = pbd_scene_material_type(sp->material);
    if (!mat) mat = pbd_scene_stretch_type(sp->stretch);
    if (!mat && in_list(option, " youngs-modulus poisson-ratio "))
        return strcmp(e->name, "tet_beam") == 0
                   ? "--material=distance-volume has no Young's modulus or Poisson ratio: "
                     "choose a material with --material"
                   : "--stretch=distance has no Young's modulus or Poisson ratio: choose "
                     "--stretch=fem or strain";
    if (mat && strcmp(option, "compliance") == 0)
        return "the material's constraints take their compliance from --youngs-modulus and "
               "--poisson-ratio (long-range attachments and the balloon's volume are hard)";
    /* PBD projects with the stiffness k: Δx = -k C ∇C/|∇C|² is the same when E scales C and ∇C
     * together (C = √(2ΨV) ∝ √E) or only the compliance (Stable Neo-Hookean, strain) */
    if (mat && method == PBD_METHOD_PBD && strcmp(option, "youngs-modulus") == 0)
        return "under --method=pbd a material's constraints are projected with the stiffness "
               "--stiffness and the motion is the same for every E (E sets the compliance that "
               "--method=xpbd and newton use)";
    return NULL;
}
