/* Reading a snapshot file into memory for snap_parse.
 *
 * The 16-byte header is read and checked before anything else, so a file
 * that is not a snapshot costs 16 bytes whatever its size.  A regular file is
 * then read up to its size (plus one byte, so that a file growing under us
 * is caught as trailing data).  Anything else -- a pipe, a FIFO, /dev/stdin,
 * a device, a /proc file whose size says 0 -- has no size to trust, so it is
 * read record by record, stopping after the END record, and never more than
 * SNAP_STREAM_MAX bytes: `gpuleak-report /dev/zero` used to read until
 * memory ran out.  read() rather than mmap: works on pipes, and a file
 * truncated under us cannot SIGBUS the reader. */
#include "model/snap_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A snapshot of a million live allocations and a million history events is
 * about 140 MB; one larger than this must come from a regular file. */
#define SNAP_STREAM_MAX ((size_t)1 << 30)

struct input {
    int fd;
    uint8_t *buf;
    size_t len, cap;
    char *err;
    size_t errlen;
};

/* Appends up to n bytes, fewer only at end of file.  0, or -1 (err set). */
static int read_more(struct input *in, size_t n, size_t *got)
{
    if (n > in->cap - in->len) {
        /* doubling for a stream read in pieces; exact for a file of known size */
        size_t need = in->len + n, cap = in->cap ? in->cap : 1 << 16;
        cap = cap <= SIZE_MAX / 2 && need <= 2 * cap ? 2 * cap : need;
        uint8_t *b = realloc(in->buf, cap);
        if (!b) {
            snprintf(in->err, in->errlen, "out of memory reading the file");
            return -1;
        }
        in->buf = b;
        in->cap = cap;
    }
    *got = 0;
    while (*got < n) {
        ssize_t r = read(in->fd, in->buf + in->len, n - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(in->err, in->errlen, "read error: %s", strerror(errno));
            return -1;
        }
        if (r == 0)
            break;
        in->len += (size_t)r;
        *got += (size_t)r;
    }
    return 0;
}

/* Record by record up to the END record and a look past it (data after END
 * is an error the parser names).  Stops early at the end of the input or at
 * a first record that is not PROCESS; snap_parse then says what is wrong. */
static int read_records(struct input *in)
{
    size_t got;
    for (bool first = true;; first = false) {
        size_t at = in->len;
        if (read_more(in, GL_SNAP_RECORD_HEADER_SIZE, &got) != 0)
            return -1;
        if (got < GL_SNAP_RECORD_HEADER_SIZE)
            return 0;
        struct gl_wire_record_header h; /* snapshot_codec.h, through snap_read.h */
        gl_wire_record_header_decode(in->buf + at, &h);
        uint32_t type = h.type;
        uint64_t length = h.length;
        if (first && type != GL_REC_PROCESS)
            return 0;
        /* the length a record claims, and many small records alike */
        if (in->len > SNAP_STREAM_MAX || length > SNAP_STREAM_MAX - in->len) {
            snprintf(in->err, in->errlen,
                     "not a regular file, and more than %zu MiB before its END record (at offset %zu): "
                     "not read further (a snapshot that large must be a regular file)",
                     SNAP_STREAM_MAX >> 20, at);
            return -1;
        }
        if (read_more(in, (size_t)length, &got) != 0)
            return -1;
        if (got < length)
            return 0;
        if (type == GL_REC_END)
            return read_more(in, GL_SNAP_RECORD_HEADER_SIZE, &got);
    }
}

int snap_load_file(const char *path, struct snapshot *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct input in = {.fd = open(path, O_RDONLY | O_CLOEXEC), .err = err, .errlen = errlen};
    if (in.fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    bool sized = fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
    size_t got;
    int rc = read_more(&in, GL_SNAP_FILE_HEADER_SIZE, &got);
    if (rc == 0)
        rc = snap_check_header(in.buf, in.len, err, errlen);
    if (rc == 0 && sized && (uint64_t)st.st_size < SIZE_MAX) {
        size_t want = (size_t)st.st_size + 1; /* the header grew in after fstat: no more */
        rc = want > in.len ? read_more(&in, want - in.len, &got) : 0;
    } else if (rc == 0) {
        rc = read_records(&in);
    }
    close(in.fd);
    if (rc == 0)
        rc = snap_parse(in.buf, in.len, out, err, errlen);
    free(in.buf);
    return rc;
}
