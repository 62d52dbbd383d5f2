/* The tracked command's environment (the script's setup_env,
 * torch_per_tensor and target_rank). */
#include "env.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher.h"

/* VAR becomes VALUE then the old value after sep, or VALUE alone. */
static void env_prepend(const char *var, const char *value, const char *sep)
{
    const char *old = getenv(var);
    char *v = old && *old ? str_printf("%s%s%s", value, sep, old) : str_printf("%s", value);
    setenv(var, v, 1);
    free(v);
}

static void env_append(const char *var, const char *value, const char *sep)
{
    const char *old = getenv(var);
    char *v = old && *old ? str_printf("%s%s%s", old, sep, value) : str_printf("%s", value);
    setenv(var, v, 1);
    free(v);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ../lib/python with gpuleak_memory.py in it, resolved, or NULL. */
static char *python_dir(void)
{
    char *rel = str_printf("%s/../lib/python", launcher()->here);
    char *dir = realpath(rel, NULL);
    free(rel);
    if (dir == NULL)
        return NULL;
    char *helper = str_printf("%s/gpuleak_memory.py", dir);
    bool there = is_file(helper);
    free(helper);
    if (!there) {
        free(dir);
        return NULL;
    }
    return dir;
}

void setup_env(void)
{
    char *lib = find_lib();
    env_prepend("LD_PRELOAD", lib, ":");
    char *pydir = python_dir();
    if (pydir != NULL)
        env_append("PYTHONPATH", pydir, ":");
    free(pydir);
    char *slash = strrchr(lib, '/');
    char *nvtx = slash ? str_printf("%.*s/libgpuleak-nvtx.so", (int)(slash - lib), lib)
                       : str_printf("%s/libgpuleak-nvtx.so", lib);
    if (getenv("NVTX_INJECTION64_PATH") == NULL && is_file(nvtx))
        setenv("NVTX_INJECTION64_PATH", nvtx, 1);
    free(nvtx);
    free(lib);
}

/* item without its spaces. */
static char *without_spaces(const char *item, size_t n)
{
    char *s = str_printf("%.*s", (int)n, item);
    char *o = s;
    for (const char *p = s; *p; p++)
        if (*p != ' ')
            *o++ = *p;
    *o = '\0';
    return s;
}

/* Dies when var's comma-separated items set a backend other than
 * cudaMallocAsync. */
static void refuse_other_backend(const char *what, const char *var)
{
    const char *v = getenv(var);
    if (v == NULL)
        return;
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        char *item = without_spaces(p, n);
        if (strncmp(item, "backend:", 8) == 0 && strcmp(item, "backend:cudaMallocAsync") != 0)
            die("%s: --torch-per-tensor: %s already sets %s (per-tensor tracking needs backend:cudaMallocAsync)",
                what, var, item);
        free(item);
        p += n;
        if (*p == ',')
            p++;
    }
}

void torch_per_tensor(const char *what)
{
    refuse_other_backend(what, "PYTORCH_ALLOC_CONF");
    refuse_other_backend(what, "PYTORCH_CUDA_ALLOC_CONF");
    const char *conf = getenv("PYTORCH_CUDA_ALLOC_CONF");
    char *wrapped = str_printf(",%s,", conf ? conf : "");
    bool set = strstr(wrapped, ",backend:cudaMallocAsync,") || strstr(wrapped, ", backend:cudaMallocAsync,");
    free(wrapped);
    if (!set)
        env_append("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync", ",");
}

char *rank_value(const char *v)
{
    while (isspace((unsigned char)*v))
        v++;
    bool neg = *v == '-';
    if (*v == '-' || *v == '+')
        v++;
    if (*v == '\0' || v[strspn(v, "0123456789")] != '\0')
        return NULL;
    while (*v == '0' && v[1] != '\0')
        v++;
    if (strlen(v) > 10 || strtoll(v, NULL, 10) > 2147483647LL || (neg && strcmp(v, "0") != 0))
        return NULL;
    return str_printf("%s", v);
}

char *env_rank(void)
{
    static const char *const vars[] = {"RANK",     "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID",         "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *r = v ? rank_value(v) : NULL;
        if (r != NULL)
            return r;
    }
    return NULL;
}
