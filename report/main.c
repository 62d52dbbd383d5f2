/* gpuleak-report: reads one snapshot written by libgpuleak.so and prints
 * its leaks and per-device peaks as text or JSON.
 *
 * Exit status: 0 report written; 1 the report could not be written (output
 * file, out of memory); 2 bad usage or a snapshot that cannot be read or is
 * invalid (then exactly one line on stderr). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "report.h"
#include "snap_read.h"
#include "symbolize.h"

#define VERSION "0.1"

static void usage(FILE *f)
{
    fputs("usage: gpuleak-report [options] SNAPSHOT\n"
          "Report leaks (allocations still live) and per-device peaks from a\n"
          "gpuleak snapshot file.\n"
          "\n"
          "  --json          write JSON (schema: docs/json-output.md) instead of text\n"
          "  --output FILE   write the report to FILE instead of stdout\n"
          "  --top N         show only the N largest leak groups (and N largest\n"
          "                  entries of each peak composition); default: all\n"
          "  --min-bytes N   do not show groups smaller than N bytes\n"
          "  --help          show this help\n"
          "  --version       show the version\n"
          "\n"
          "Exit status: 0 ok, 1 the report could not be written,\n"
          "2 bad usage or an unreadable/invalid snapshot.\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("gpuleak-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* Whole-string unsigned decimal; no sign, no junk, no overflow. */
static int parse_u64(const char *s, unsigned long long *v)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    *v = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 't'},
        {"min-bytes", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct analyze_opts opts = {0};
    const char *output = NULL;
    int json = 0, c;
    unsigned long long v;
    opterr = 0; /* we word the errors ourselves, on one line */
    while ((c = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'o': output = optarg; break;
        case 't':
            if (parse_u64(optarg, &v) || v == 0 || v > SIZE_MAX)
                return bad_usage("--top needs a positive number, not '%s'", optarg);
            opts.top = (size_t)v;
            break;
        case 'm':
            if (parse_u64(optarg, &v))
                return bad_usage("--min-bytes needs a number of bytes, not '%s'", optarg);
            opts.min_bytes = v;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("gpuleak-report " VERSION " (snapshot format v%u)\n", GL_SNAP_VERSION); return 0;
        case ':': return bad_usage("option '%s' needs an argument", argv[optind - 1]);
        default: return bad_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return bad_usage("%s", argc - optind ? "expected one snapshot file, got more"
                                             : "no snapshot file given");
    const char *path = argv[optind];

    struct snapshot s;
    char err[512];
    if (snap_load_file(path, &s, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
        return 2;
    }
    struct analysis a;
    if (analyze(&s, &opts, &a) != 0) {
        fputs("gpuleak-report: out of memory\n", stderr);
        snap_free(&s);
        return 1;
    }
    struct symbolizer *sy = sym_new(&s);
    if (!sy) {
        fputs("gpuleak-report: out of memory\n", stderr);
        analysis_free(&a);
        snap_free(&s);
        return 1;
    }
    FILE *out = stdout;
    if (output && !(out = fopen(output, "w"))) {
        fprintf(stderr, "gpuleak-report: %s: cannot write: %s\n", output, strerror(errno));
        sym_free(sy);
        analysis_free(&a);
        snap_free(&s);
        return 1;
    }
    static char obuf[1 << 16];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    struct report_ctx r = {.path = path, .s = &s, .a = &a, .sy = sy, .out = out};
    report_prepare(&r);
    if (json)
        output_json(&r);
    else
        output_text(&r);
    int rc = 0;
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "gpuleak-report: %s: write error: %s\n",
                output ? output : "stdout", strerror(errno));
        rc = 1;
    }
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "gpuleak-report: %s: write error: %s\n", output, strerror(errno));
        rc = 1;
    }
    report_ctx_free(&r);
    sym_free(sy);
    analysis_free(&a);
    snap_free(&s);
    return rc;
}
