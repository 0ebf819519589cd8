/* Which scene parameters a scene reads, so that a program refuses a given option that cannot
 * act, with the reason, instead of ignoring it (experiments/README.md "Meshes and scenes"). One row per scene lists the options its builder reads at all; the rules
 * below it say when a listed one still cannot act (a loaded mesh replaces the generated one;
 * E and ν belong to a material; a material's compliance comes from E and ν; PBD's motion does
 * not depend on E; PBD reads no compliance and XPBD no stiffness). */
#include "pbd_scenes.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *scene;
    const char *reads; /* space separated, with a space at both ends */
} table[] = {
    {"chain", " stiffness compliance resolution size mass "},
    {"cloth", " pin stiffness compliance resolution size mass diagonal mesh stretch youngs-modulus "
              "poisson-ratio long-range-attachments "},
    {"cloth_bend", " pin stiffness compliance resolution size mass diagonal mesh stretch "
                   "youngs-modulus poisson-ratio long-range-attachments k-bend bend-compliance "},
    {"tet_beam", " pin stiffness compliance resolution size mass tets-per-cube tet material "
                 "youngs-modulus poisson-ratio "},
    {"balloon", " pin stiffness compliance resolution size mass mesh stretch youngs-modulus "
                "poisson-ratio long-range-attachments k-bend bend-compliance k-pressure "},
    {"cloth_bag", " pin stiffness compliance resolution size mass diagonal mesh stretch "
                  "youngs-modulus poisson-ratio long-range-attachments k-bend bend-compliance "},
    {"tear", " stiffness compliance resolution size mass diagonal mesh k-bend bend-compliance "
             "tear-threshold "},
#define FLUID_READS                                                                           \
    " compliance resolution size fluid-density fluid-kernel fluid-epsilon fluid-unilateral "   \
    "fluid-walls fluid-s-corr fluid-s-corr-k fluid-s-corr-n fluid-s-corr-dq fluid-vorticity "  \
    "fluid-xsph "
    {"dam_break", FLUID_READS},
    {"fluid_rest", FLUID_READS},
#define ROD_READS " stiffness resolution size mass k-bend youngs-modulus poisson-ratio rod-radius "
    {"rod", ROD_READS},
    {"helix", ROD_READS},
#define CONTACT_READS                                                                         \
    " stiffness compliance resolution size mass diagonal mu-static mu-kinetic restitution "    \
    "contact-margin collider "
    {"cloth_sphere", CONTACT_READS "sphere-radius "},
    {"cloth_ground_slide", CONTACT_READS "launch-speed drop-height ramp-angle "},
    {"cloth_fold", CONTACT_READS "self-collision thickness "},
    {"rigid_coupling", CONTACT_READS "body body-mass body-size body-speed pin-corners "},
};

/* option is one of the words of list (" a b c ") */
static int in_list(const char *option, const char *list)
{
    char word[80];
    if (snprintf(word, sizeof word, " %s ", option) >= (int)sizeof word) return 0;
    return strstr(list, word) != NULL;
}

const char *pbd_scene_unread(const pbd_scene_entry *e, const pbd_scene_params *sp, int method,
                             int reference, const char *option)
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
    int rod = strcmp(e->name, "rod") == 0 || strcmp(e->name, "helix") == 0;
    if (!mat && !rod && in_list(option, " youngs-modulus poisson-ratio "))
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
    if (mat && method == PBD_METHOD_PBD && !reference && strcmp(option, "youngs-modulus") == 0)
        return "under --method=pbd a material's constraints are projected with the stiffness "
               "--stiffness and the motion is the same for every E (E sets the compliance that "
               "--method=xpbd and newton use)";
    /* the fluid's relaxation is ε under PBD and the compliance under XPBD (fluid_project.c) */
    if (strcmp(option, "fluid-epsilon") == 0 && method != PBD_METHOD_PBD)
        return "XPBD relaxes the density update by its compliance (epsilon = alpha/(w dt^2)): "
               "give --compliance";
    if (in_list(option, " fluid-s-corr-k fluid-s-corr-n fluid-s-corr-dq ") && !sp->fluid.s_corr)
        return "it shapes the artificial pressure s_corr: give --fluid-s-corr=1";
    /* a rod's compliances come from E, G (ν) and the cross-section; PBD projects with k */
    if (rod && method == PBD_METHOD_PBD && in_list(option, " youngs-modulus poisson-ratio "))
        return "under --method=pbd the rod is projected with --stiffness and --k-bend; E and nu "
               "set the compliances that --method=xpbd uses";
    if (rod && method != PBD_METHOD_PBD && in_list(option, " stiffness k-bend "))
        return "under --method=xpbd (and newton) the rod's compliances come from --youngs-modulus, "
               "--poisson-ratio and --rod-radius; --stiffness and --k-bend are PBD's";
    /* self collision's thickness acts only when it is on */
    if (strcmp(option, "thickness") == 0 && !sp->self_collision)
        return "it is self collision's thickness h: give --self-collision=1";
    /* PBD Eq. 8–9 project with k alone (solver/xpbd/project.c project_pbd); XPBD Eq. 18 with α̃
     * alone (k is read only by shape matching's goal fraction, in no scene of the table) */
    if (method == PBD_METHOD_PBD && !reference && strcmp(option, "compliance") == 0)
        return "--method=pbd projects with the stiffness k and reads no compliance (use "
               "--method=xpbd or newton, or --reference=newton, which read it)";
    /* VBD and PD minimise the energies C²/(2α) (AVBD reads k = 1 as hard where α = 0) */
    if ((method == PBD_METHOD_VBD || method == PBD_METHOD_PD) && !rod &&
        strcmp(option, "stiffness") == 0)
        return method == PBD_METHOD_VBD
                   ? "--method=vbd minimises the energies C^2/(2 alpha) and reads no stiffness "
                     "(use --compliance; --stiffness is PBD's)"
                   : "--method=pd minimises the energies C^2/(2 alpha) and reads no stiffness "
                     "(use --compliance; --stiffness is PBD's)";
    if ((method == PBD_METHOD_VBD || method == PBD_METHOD_PD) && !rod &&
        strcmp(option, "k-bend") == 0 && sp->k_bend > 0.0)
        return "VBD and PD minimise the bending energy C^2/(2 alpha) and read no bending "
               "stiffness (use --bend-compliance; --k-bend=0 alone acts: no bending)";
    if (method == PBD_METHOD_XPBD && strcmp(option, "stiffness") == 0)
        return "--method=xpbd projects with the compliance alpha and reads no stiffness (use "
               "--compliance; --stiffness is PBD's)";
    return NULL;
}
