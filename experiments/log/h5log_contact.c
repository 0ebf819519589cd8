/* /series/contact/ of a world with colliders, rigid bodies or cloth triangles
 * (solver/collision/, PBD Sec. 3.4, 4.2, 4.3): what the step's contacts did
 * (pbd_world_contact_stats). Written every step; NaN where the step did not measure it. */
#include "log_private.h"

#include "solver/collision/pbd_collision.h"

#include <math.h>

enum { K_CONTACTS, K_ACTIVE, K_PEN_MAX, K_PEN_MEAN, K_STICK, K_SLIDE, K_JN, K_JT, K_SELF,
       K_CROSS, K_BODY_P, K_COUNT };

int log_make_contact(pbd_h5log *log, hid_t series, const pbd_world *w)
{
    for (int k = 0; k < LOG_CONTACT_COLUMNS; k++) log->c_contact[k] = -1;
    if (!w->collision_stages) return 0;
    hid_t g = H5Gcreate2(series, "contact", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    H5LTset_attribute_string(g, ".", "rows",
                             "particle-collider contacts (plane_collision rows, PBD Sec. 3.4) of "
                             "the step's last substep; impulses summed over the step's substeps "
                             "(solver/collision/README.md)");
    int *c = log->c_contact;
    c[K_CONTACTS] = log_add_column(log, g, "contacts", 1, "1",
                                   "particle-collider contact rows of the last substep");
    c[K_ACTIVE] = log_add_column(log, g, "contacts_active", 1, "1",
                                 "of those, rows whose projection pushed (lambda > 0)");
    c[K_PEN_MAX] = log_add_column(log, g, "penetration_max", 1, "m",
                                  "max of max(0, -d) over every particle and plane, sphere or "
                                  "box collider and over the rows (any collider), d the signed "
                                  "distance after the substep's solve and velocity update; NaN "
                                  "without rows");
    c[K_PEN_MEAN] = log_add_column(log, g, "penetration_mean", 1, "m",
                                   "mean over the rows of max(0, -d); NaN without rows");
    c[K_STICK] = log_add_column(log, g, "sticking", 1, "1",
                                "active rows the friction pass left without tangential relative "
                                "velocity (static friction, or kinetic friction that stopped it)");
    c[K_SLIDE] = log_add_column(log, g, "sliding", 1, "1", "active rows still sliding");
    c[K_JN] = log_add_column(log, g, "impulse_normal", 1, "N s",
                             "sum of the normal impulses lambda/dt + j_n (projection and "
                             "restitution) over the step's substeps and active rows");
    c[K_JT] = log_add_column(log, g, "impulse_tangential", 1, "N s",
                             "sum of the friction impulses j_t over the step's substeps");
    c[K_SELF] = log_add_column(log, g, "self_contacts", 1, "1",
                               "self_collision rows of the last substep (PBD Sec. 4.3)");
    c[K_CROSS] = log_add_column(log, g, "self_crossings", 1, "1",
                                "vertex-triangle pairs of the cloth whose vertex passed through "
                                "the triangle in a substep (motion linear in each substep), "
                                "summed over the step; 0 is self collision's claim; NaN when "
                                "not measured");
    int bad = 0;
    for (int k = 0; k < K_BODY_P; k++) bad |= c[k] < 0;
    if (!bad && pbd_world_rigid_count(w) > 0) {
        c[K_BODY_P] = log_add_column(log, g, "rigid_linear_momentum", 3, "kg m/s",
                                     "sum M v over the rigid bodies (the particles' is "
                                     "/series/linear_momentum)");
        bad = c[K_BODY_P] < 0;
    }
    H5Gclose(g);
    return bad ? -1 : 0;
}

static void put_value(pbd_h5log *log, int col, const double *v)
{
    if (col < 0) return;
    log_column *c = &log->cols[col];
    for (int k = 0; k < c->width; k++) c->buf[(size_t)log->buffered * c->width + k] = v[k];
}

void log_put_contact(pbd_h5log *log, const pbd_world *w)
{
    if (log->c_contact[K_CONTACTS] < 0) return;
    pbd_contact_stats s = pbd_world_contact_stats(w);
    const int m = s.step == w->step_count && w->step_count > 0;
    const double v[K_BODY_P] = {s.contacts, s.active, s.penetration_max, s.penetration_mean,
                                s.sticking, s.sliding, s.impulse_normal, s.impulse_tangential,
                                s.self_contacts, s.self_crossings >= 0 ? (double)s.self_crossings
                                                                       : NAN};
    for (int k = 0; k < K_BODY_P; k++) {
        double x = m ? v[k] : NAN;
        put_value(log, log->c_contact[k], &x);
    }
    if (log->c_contact[K_BODY_P] >= 0) {
        double p[3] = {0.0, 0.0, 0.0};
        for (int b = 0; b < pbd_world_rigid_count(w); b++) {
            pbd_rigid_state st;
            if (pbd_world_rigid_get(w, b, &st) != PBD_OK) continue;
            for (int k = 0; k < 3; k++) p[k] += pbd_world_rigid_mass(w, b) * st.v[k];
        }
        put_value(log, log->c_contact[K_BODY_P], p);
    }
}
