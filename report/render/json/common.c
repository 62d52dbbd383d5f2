/* What the JSON sections share: a stack's frames and a group's first
 * members, written the same way in every section and mode. */
#include "render/json/common.h"

#include "model/snap_read.h"
#include "model/user_frame.h"
#include "snapshot_format.h"

static const char *cut_name(uint8_t cut)
{
    return cut == CS_CUT_LIMIT ? "depth-limit" : cut == CS_CUT_GROUP ? "group-depth" : NULL;
}

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs)
{
    json_key(j, "frames");
    json_arr(j);
    const struct cstack *c = cs ? &db->cs[cs] : NULL;
    for (uint32_t i = 0; c && i < c->n; i++) {
        const struct sym_frame *fr = sdb_frame(db, c, i);
        json_obj(j);
        json_key(j, "function"); json_str(j, fr->function);
        json_key(j, "file"); json_str(j, fr->file);
        json_key(j, "line"); json_u64(j, fr->line);
        json_key(j, "module"); json_str(j, fr->module);
        json_key(j, "address"); json_u64(j, fr->address);
        json_key(j, "offset"); json_u64(j, fr->offset);
        json_key(j, "inlined"); json_bool(j, fr->inlined);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "folded_frames"); json_u64(j, c ? c->folded : 0);
    json_key(j, "start_frames"); json_u64(j, c ? c->start : 0);
    json_key(j, "truncated"); json_str(j, c ? cut_name(c->cut) : NULL);
    /* the frame one line names this stack by (model/user_frame.h) */
    json_key(j, "label_frame"); json_u64(j, sdb_user_frame_pos(db, cs));
}

void json_group_head(struct json *j, uint64_t bytes, uint64_t count, unsigned kind, int32_t device, unsigned api)
{
    json_key(j, "bytes"); json_u64(j, bytes);
    json_key(j, "count"); json_u64(j, count);
    json_key(j, "kind"); json_str(j, gl_kind_name(kind));
    json_key(j, "kind_code"); json_u64(j, kind);
    json_key(j, "device"); json_i64(j, device);
    json_key(j, "api"); json_str(j, gl_api_name(api));
    json_key(j, "api_code"); json_u64(j, api);
}

void json_rank(struct json *j, const struct snap_process *p)
{
    if (p->flags & GL_SNAP_F_NO_RANK)
        json_null(j);
    else
        json_u64(j, p->rank);
}

void json_per_hour(struct json *j, uint64_t bytes_per_hour)
{
    json_key(j, "bytes_per_hour");
    if (bytes_per_hour)
        json_u64(j, bytes_per_hour);
    else
        json_null(j);
}
