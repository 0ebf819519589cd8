/* /series/fluid/ of a world with a fluid (solver/fluid/): the density error of the
 * fluid's density set after the step's projection and before it (in units of ρ0), the
 * neighbours per particle, and with record_iterations the error after each iteration of the
 * step's last substep. Written every step (the fluid measures them in its own stages). */
#include "log_private.h"

#include "solver/fluid/pbd_fluid.h"

#include <math.h>

enum { F_MAX, F_MEAN, F_MAX0, F_MEAN0, F_NB_MEAN, F_NB_MAX, F_DROPPED, F_IT_MAX, F_IT_MEAN };

int log_make_fluid(pbd_h5log *log, hid_t series, const pbd_world *w)
{
    for (int k = 0; k < LOG_FLUID_COLUMNS; k++) log->c_fluid[k] = -1;
    if (!pbd_world_fluid_particles(w, NULL)) return 0;
    hid_t g = H5Gcreate2(series, "fluid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    H5LTset_attribute_string(g, ".", "error",
                             "density error |rho_i/rho0 - 1| (unilateral fluid: max(rho_i/rho0 "
                             "- 1, 0)) over the fluid's particles, in units of rho0, with the "
                             "(sub)step's neighbour lists (solver/fluid/README.md)");
    int *c = log->c_fluid;
    c[F_MAX] = log_add_column(log, g, "error_max", 1, "1",
                              "max density error after the last substep's projection");
    c[F_MEAN] = log_add_column(log, g, "error_mean", 1, "1",
                               "mean density error after the last substep's projection");
    c[F_MAX0] = log_add_column(log, g, "error_max_predicted", 1, "1",
                               "max density error at the predicted positions (before it)");
    c[F_MEAN0] = log_add_column(log, g, "error_mean_predicted", 1, "1",
                                "mean density error at the predicted positions");
    c[F_NB_MEAN] = log_add_column(log, g, "neighbours_mean", 1, "1",
                                  "neighbours per particle (closer than h, itself not counted)");
    c[F_NB_MAX] = log_add_column(log, g, "neighbours_max", 1, "1", "the most of any particle");
    c[F_DROPPED] = log_add_column(log, g, "neighbours_dropped", 1, "1",
                                  "neighbours beyond max_neighbours, left out of the rows");
    int bad = 0;
    for (int k = 0; k <= F_DROPPED; k++) bad |= c[k] < 0;
    if (!bad && w->def.record_iterations) {
        c[F_IT_MAX] = log_add_column(log, g, "iteration_error_max", w->def.iterations + 1, "1",
                                     "max density error of the last substep before its first "
                                     "iteration (column 0) and after each (column k)");
        c[F_IT_MEAN] = log_add_column(log, g, "iteration_error_mean", w->def.iterations + 1,
                                      "1", "mean density error, the same columns");
        bad = c[F_IT_MAX] < 0 || c[F_IT_MEAN] < 0;
    }
    H5Gclose(g);
    return bad ? -1 : 0;
}

/* A column's row (the buffered one) from values, NaN past n. */
static void put_row(pbd_h5log *log, int col, const double *v, int n)
{
    if (col < 0) return;
    log_column *c = &log->cols[col];
    for (int k = 0; k < c->width; k++)
        c->buf[(size_t)log->buffered * c->width + k] = k < n ? v[k] : NAN;
}

void log_put_fluid(pbd_h5log *log, const pbd_world *w)
{
    if (log->c_fluid[F_MAX] < 0) return;
    pbd_fluid_stats s = pbd_world_fluid_stats(w);
    const double v[] = {s.error_max, s.error_mean, s.error_max0, s.error_mean0,
                        s.neighbours_mean, (double)s.neighbours_max, (double)s.dropped};
    for (int k = 0; k <= F_DROPPED; k++) put_row(log, log->c_fluid[k], v + k, 1);
    const double *mx = NULL, *mean = NULL;
    int n = pbd_world_fluid_iteration_errors(w, &mx, &mean);
    put_row(log, log->c_fluid[F_IT_MAX], mx, n);
    put_row(log, log->c_fluid[F_IT_MEAN], mean, n);
}
