/* Shared by the loader fuzz targets: write fuzz bytes to a private temporary file. */
#ifndef PBD_FUZZ_FILES_H
#define PBD_FUZZ_FILES_H

#include <stdio.h>
#include <unistd.h>

/* Write data[0..size) to path; 0 on success. */
static inline int fuzz_write(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t wrote = fwrite(data, 1, size, f);
    return (fclose(f) == 0 && wrote == size) ? 0 : -1;
}

#endif
