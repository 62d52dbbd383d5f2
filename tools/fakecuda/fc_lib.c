/* What every library stand-in shares (fc_lib.h): the default of its
 * unimplemented names, and its version property. */
#include "fc_lib.h"
#include "fc_say.h"

#include <library_types.h>

#include <stdlib.h>
#include <string.h>

static int stub_log_wanted(void)
{
    const char *v = getenv("FAKECUDA_STUB_LOG");
    return v && strcmp(v, "1") == 0;
}

void fc_lib_stub_log(const char *name, int *said)
{
    if (stub_log_wanted())
        fc_say_once(name, said, ": stub (success, computes nothing)");
}

int fc_lib_stub(const char *name, int *said, void *first)
{
    (void)first;
    fc_lib_stub_log(name, said);
    return 0;
}

_Static_assert(FC_LIB_MAJOR_VERSION == (int)MAJOR_VERSION && FC_LIB_MINOR_VERSION == (int)MINOR_VERSION &&
                   FC_LIB_PATCH_LEVEL == (int)PATCH_LEVEL, "libraryPropertyType");

int fc_lib_property(int type, int major, int minor, int patch, int *value)
{
    if (!value)
        return -1;
    switch (type) {
    case FC_LIB_MAJOR_VERSION: *value = major; return 0;
    case FC_LIB_MINOR_VERSION: *value = minor; return 0;
    case FC_LIB_PATCH_LEVEL: *value = patch; return 0;
    default: return -1;
    }
}
