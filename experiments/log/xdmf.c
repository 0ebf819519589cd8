/* The XDMF sidecar (ParaView: File > Open <run>.xdmf, any of its readers): a temporal
 * collection with one grid per frame. Every DataItem names one whole dataset with its
 * NumberType — ParaView's default reader (Xdmf3) drops a HyperSlab's geometry, whose number
 * type it does not know until read ("Skipping unrecognized array type [None]": 0 points).
 * Geometry: /frames/<k>/positions; cells: the frame's triangles (/scene/triangles or its
 * topology version's), or /scene/tets, else the first distance set's edges as polylines,
 * else points; velocities as a point vector when the frames hold them, and the orientations
 * (unit quaternions w, x, y, z: a 4-component point array) and angular velocities when
 * there is one per point (the rigid bodies). */
#include "log_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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

/* The group holding frame f's topology: /scene or /frames/topology/<v>. */
static void topology_group(const log_frame *f, char *buf, size_t size)
{
    if (f->version == 0)
        snprintf(buf, size, "/scene");
    else
        snprintf(buf, size, "/frames/topology/%d", f->version);
}

static void write_topology(FILE *f, const pbd_h5log *log, const log_frame *fr, const char *h5)
{
    char group[96];
    topology_group(fr, group, sizeof group);
    if (log->n_tets > 0) {
        fprintf(f, "    <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\">\n"
                   "     <DataItem Dimensions=\"%d 4\" NumberType=\"Int\" Precision=\"4\" "
                   "Format=\"HDF\">%s:/scene/tets</DataItem>\n    </Topology>\n",
                log->n_tets, log->n_tets, h5);
    } else if (fr->n_tris > 0) {
        fprintf(f, "    <Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">\n"
                   "     <DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Precision=\"4\" "
                   "Format=\"HDF\">%s:%s/triangles</DataItem>\n    </Topology>\n",
                fr->n_tris, fr->n_tris, h5, group);
    } else if (fr->n_edges > 0) {
        /* the edges dataset of that version: <group>/sets/<first arity-2 set>/indices */
        const char *edges = log->topo.version == fr->version ? log->topo.edges : NULL;
        char path[256];
        if (!edges) { /* an older version: same set name under its group */
            const char *tail = strstr(log->topo.edges, "/sets/");
            snprintf(path, sizeof path, "%s%s", group, tail ? tail : "");
            edges = path;
        }
        fprintf(f, "    <Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
                   "NumberOfElements=\"%ld\">\n"
                   "     <DataItem Dimensions=\"%ld 2\" NumberType=\"Int\" Precision=\"4\" "
                   "Format=\"HDF\">%s:%s</DataItem>\n    </Topology>\n",
                fr->n_edges, fr->n_edges, h5, edges);
    } else {
        fprintf(f, "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%d\"/>\n",
                fr->n);
    }
}

/* A node attribute of frame k: /frames/<k>/<dataset>, n x width doubles. */
static void attribute(FILE *f, const char *name, const char *type, int n, int width,
                      const char *h5, hsize_t k, const char *dataset)
{
    fprintf(f, "    <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n"
               "     <DataItem Dimensions=\"%d %d\" NumberType=\"Float\" Precision=\"8\" "
               "Format=\"HDF\">%s:/frames/%06ld/%s</DataItem>\n    </Attribute>\n",
            name, type, n, width, h5, (long)k, dataset);
}

void log_remove_xdmf(const pbd_h5log *log)
{
    char path[3300];
    snprintf(path, sizeof path, "%s/%s.xdmf", log->dir, log->run);
    unlink(path);
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
    fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
               "<Xdmf Version=\"3.0\">\n <Domain>\n"
               "  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
            run);
    for (hsize_t k = 0; k < log->n_frames; k++) {
        const log_frame *fr = &log->frames[k];
        fprintf(f, "   <Grid Name=\"frame %ld\" GridType=\"Uniform\">\n", (long)k);
        fprintf(f, "    <Time Value=\"%.17g\"/>\n", fr->time);
        write_topology(f, log, fr, h5);
        fprintf(f, "    <Geometry GeometryType=\"XYZ\">\n"
                   "     <DataItem Dimensions=\"%d 3\" NumberType=\"Float\" Precision=\"8\" "
                   "Format=\"HDF\">%s:/frames/%06ld/positions</DataItem>\n    </Geometry>\n",
                fr->n, h5, (long)k);
        if (log->frame_velocities)
            attribute(f, "velocity", "Vector", fr->n, 3, h5, k, "velocities");
        if (fr->n_orient == fr->n) { /* one orientation per point: the rigid bodies */
            attribute(f, "orientation", "Matrix", fr->n, 4, h5, k, "orientations");
            if (log->frame_velocities)
                attribute(f, "angular_velocity", "Vector", fr->n, 3, h5, k,
                          "angular_velocities");
        }
        fprintf(f, "   </Grid>\n");
    }
    fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
    if (pbd_atomic_fclose(&atomic, f, 0) != PBD_OK)
        return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar (%s)", path,
                         pbd_last_error());
    return PBD_OK;
}
