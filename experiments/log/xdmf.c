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

pbd_status log_write_xdmf(pbd_h5log *log)
{
    if (log->n_frames == 0) return PBD_OK;
    char path[3300], tmp[3400];
    snprintf(path, sizeof path, "%s/%s.xdmf", log->dir, log->run);
    snprintf(tmp, sizeof tmp, "%s.partial-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar: %s", tmp, strerror(errno));
    const char *h5 = strrchr(log->path, '/') ? strrchr(log->path, '/') + 1 : log->path;
    long n = log->n, F = (long)log->n_frames;
    fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
               "<Xdmf Version=\"2.0\">\n <Domain>\n"
               "  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
            log->run);
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
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar", path);
    }
    return PBD_OK;
}
