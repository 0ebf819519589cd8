/* The XDMF sidecar that lets ParaView play a run file's frames. */
#include "log_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* text with XML's five special characters escaped (a run name such as a"b<c>&) */
static void xml_escape(char *out, size_t size, const char *s)
{
    size_t n = 0;
    out[0] = '\0';
    for (; *s && n + 7 < size; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                        : *s == '"' ? "&quot;" : *s == '\'' ? "&apos;" : NULL;
        if (e) {
            n += (size_t)snprintf(out + n, size - n, "%s", e);
        } else {
            out[n++] = *s;
            out[n] = '\0';
        }
    }
}

pbd_status log_write_xdmf(pbd_h5log *log)
{
    if (log->n_frames == 0) return PBD_OK;
    char path[3300];
    snprintf(path, sizeof path, "%s/%s.xdmf", log->dir, log->run);
    pbd_atomic_file atomic; /* <run>.xdmf.partial-<pid>, removed on SIGINT/SIGTERM */
    FILE *f = pbd_atomic_fopen(&atomic, path);
    if (!f) return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar (%s)", path,
                             pbd_last_error());
    char h5[1600], run[1600];
    xml_escape(h5, sizeof h5, strrchr(log->path, '/') ? strrchr(log->path, '/') + 1 : log->path);
    xml_escape(run, sizeof run, log->run);
    long n = log->n, F = (long)log->n_frames;
    fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
               "<Xdmf Version=\"2.0\">\n <Domain>\n"
               "  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
            run);
    for (long k = 0; k < F; k++) {
        fprintf(f, "   <Grid Name=\"frame %ld\" GridType=\"Uniform\">\n", k);
        fprintf(f, "    <Time Value=\"%.17g\"/>\n", log->frame_times[k]);
        if (log->n_tris > 0)
            fprintf(f, "    <Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">\n"
                       "     <DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Precision=\"4\" "
                       "Format=\"HDF\">%s:/scene/triangles</DataItem>\n    </Topology>\n",
                    log->n_tris, log->n_tris, h5);
        else if (log->n_edges > 0)
            fprintf(f, "    <Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
                       "NumberOfElements=\"%ld\">\n"
                       "     <DataItem Dimensions=\"%ld 2\" NumberType=\"Int\" Precision=\"4\" "
                       "Format=\"HDF\">%s:%s</DataItem>\n    </Topology>\n",
                    log->n_edges, log->n_edges, h5, log->edges_dataset);
        else
            fprintf(f, "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%ld\"/>\n", n);
        fprintf(f, "    <Geometry GeometryType=\"XYZ\">\n"
                   "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %ld 3\" Type=\"HyperSlab\">\n"
                   "      <DataItem Dimensions=\"3 3\" Format=\"XML\">%ld 0 0 1 1 1 1 %ld 3</DataItem>\n"
                   "      <DataItem Dimensions=\"%ld %ld 3\" NumberType=\"Float\" Precision=\"8\" "
                   "Format=\"HDF\">%s:/frames/positions</DataItem>\n"
                   "     </DataItem>\n    </Geometry>\n   </Grid>\n",
                n, k, n, F, n, h5);
    }
    fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
    if (pbd_atomic_fclose(&atomic, f, 0) != PBD_OK)
        return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar (%s)", path,
                         pbd_last_error());
    return PBD_OK;
}
