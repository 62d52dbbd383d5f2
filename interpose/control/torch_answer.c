#include "control/torch_answer.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "control/torch_state.h"
#include "cuda/before_attach.h"
#include "python/pyapi.h"
#include "snapshot_format.h"

char *gl_torch_interrupted_answer(char *partial, size_t *len)
{
    free(partial);
    char *x = malloc(1);
    *len = x != NULL;
    if (x != NULL)
        *x = 'X';
    return x;
}

/* ---- the last view PyTorch gave ------------------------------------------ */

/* An answer (the collect snippet's bytes) and when it was taken: what exit
 * and fatal-signal snapshots carry, since they cannot ask.  Replaced by
 * every answer; a reader takes it out (exchange), decodes it, and puts it
 * back unless a newer one came meanwhile, so no lock is shared with the
 * main thread and nothing is freed while read. */
struct kept_view {
    uint64_t taken_ns;
    size_t len;
    char bytes[];
};
static struct kept_view *_Atomic kept;

void gl_torch_keep_view(const char *buf, size_t len)
{
    struct kept_view *k = malloc(sizeof *k + len);
    if (k == NULL)
        return;
    k->taken_ns = gl_mono_ns();
    k->len = len;
    memcpy(k->bytes, buf, len);
    free(atomic_exchange(&kept, k));
}


/* The last view into *out, with its age (at least 1 us: 0 means "asked for
 * this snapshot").  False, *out empty, when there is none. */
bool gl_torch_decode_kept(struct gl_torch_view *out)
{
    struct kept_view *k = atomic_exchange(&kept, NULL);
    if (k == NULL)
        return false;
    bool ok = gl_torch_decode(k->bytes, k->len, out);
    if (ok) {
        uint64_t age = (gl_mono_ns() - k->taken_ns) / 1000u;
        out->status = GL_TORCH_ANSWERED;
        out->age_us = age != 0 ? age : 1;
    } else {
        gl_torch_view_free(out);
    }
    struct kept_view *none = NULL;
    if (!atomic_compare_exchange_strong(&kept, &none, k))
        free(k);
    return ok;
}


/* The segments of a decoded view, with their sizes: the blocks of one
 * segment are consecutive in the collect snippet's answer, and cover it. */
static size_t segments_of(const struct gl_torch_view *v, struct gl_pre_segment *segs)
{
    size_t n = 0;
    for (size_t i = 0; i < v->nblocks; i++) {
        const struct gl_torch_block *b = &v->blocks[i];
        if (n == 0 || segs[n - 1].address != b->segment)
            segs[n++] = (struct gl_pre_segment){b->segment, 0, b->device};
        segs[n - 1].size += b->size;
    }
    return n;
}

/* PyTorch's view answered the attach: its segments then, less those
 * gpuleak saw made, were made before the attach (cuda/before_attach.c
 * counts them and names their frees), and the view is kept for the first
 * snapshot.  The answer is read, not taken. */
static void note_attach_answer(const char *buf, size_t len)
{
    struct gl_torch_view v;
    memset(&v, 0, sizeof v);
    struct gl_pre_segment *segs = NULL;
    if (gl_torch_decode(buf, len, &v) && (segs = malloc((v.nblocks ? v.nblocks : 1) * sizeof *segs)) != NULL) {
        gl_before_attach_torch_listed(segs, segments_of(&v, segs));
        gl_torch_keep_view(buf, len);
        atomic_store(&gl_torch.attach_view_unclaimed, true);
    }
    free(segs);
    gl_torch_view_free(&v);
}

/* Any answer of PyTorch's (not 'X': interrupted, or _snapshot() raised) serves the attach's question
 * while it waits: one is enough. */
void gl_torch_serve_attach(const char *buf, size_t len)
{
    if ((len == 1 && buf[0] == 'X') || !atomic_load(&gl_torch.attach_answer_wanted))
        return;
    if (!atomic_exchange(&gl_torch.attach_answer_wanted, false))
        return;
    if (buf != NULL)
        note_attach_answer(buf, len);
    else /* None: torch.cuda not initialized, or not the caching allocator: no segment */
        gl_before_attach_torch_listed(NULL, 0);
}

/* Blocks in segments made before the attach get their flag: a snapshot
 * names those segments so, and the ledger counts their tensors. */
void gl_torch_mark_before_attach(struct gl_torch_view *v)
{
    if (!gl_before_attach_counting())
        return;
    for (size_t i = 0; i < v->nblocks; i++)
        if (gl_before_attach_torch_segment(v->blocks[i].segment))
            v->blocks[i].flags |= GL_TORCH_BLOCK_F_BEFORE_ATTACH;
}

/* ---- asking for the blocks --------------------------------------------- */

/* `_r`: None when torch.cuda.memory is not imported or torch.cuda is not
 * initialized (no allocator to ask) or its allocator is not the caching one
 * (backend:cudaMallocAsync keeps no blocks: its _snapshot() raises, and each
 * tensor is a CUDA allocation gpuleak tracks itself), b"X" when _snapshot()
 * raised, else: "GLT1", u32 blocks, u32 segments, u64 reserved, u64
 * allocated; per block u64 segment, address, size, requested_size, i32
 * device, u16 state, u16 0, u32 frames, then frames x (u32 line, u32 file,
 * u32 name) as string indexes, innermost first; then u32 strings and each
 * as u32 length + UTF-8.  Frames are PyTorch's (filename, line, name),
 * innermost first, at most 64 per block; cached blocks' are not sent.
 * Python frames only: a program that records history itself with PyTorch's
 * default stacks="all" gets C++ frames too (torch::unwind::unwind(), the
 * allocator, the interpreter's own C functions), innermost, before the
 * Python ones.  Those are told by their file, which PyTorch's symbolizer
 * gives as "??", "" or a C/C++ source (never a Python file), or by a
 * demangled name's "(" (never in a code object's name).  Dropped before
 * the 64 are counted, so the Python frames are there as with
 * stacks="python" (issue 45, item 4). */
/* Appended to an answer ("GLT1"...): "GLX1", u64 max_memory_allocated()
 * and u64 max_memory_reserved() summed over the devices, u32 settings and
 * each as u32 length + "key=value" (UTF-8): PyTorch's own
 * allocator_settings from the same _snapshot(), values as str() gives
 * them.  Apart, so that a torch without them still gives its blocks; a
 * reader that finds no "GLX1" knows none of them. */
#define COLLECT_EXTRA                                                                                  \
    "if isinstance(_r, bytes) and _r[:4] == b'GLT1':\n"                                               \
    "    try:\n"                                                                                      \
    "        _mx = _rx = 0\n"                                                                         \
    "        for _d in range(_c.device_count()):\n"                                                   \
    "            _mx += _c.max_memory_allocated(_d)\n"                                                \
    "            _rx += _c.max_memory_reserved(_d)\n"                                                 \
    "        _sd = _sn.get('allocator_settings') or {}\n"                                             \
    "        _as = [(str(_k) + '=' + str(_v)).encode('utf-8', 'replace') for _k, _v in _sd.items()][:64]\n" \
    "        _r += _t.pack('<4sQQI', b'GLX1', _mx, _rx, len(_as)) + b''.join(\n"                      \
    "            _t.pack('<I', len(_e)) + _e for _e in _as)\n"                                        \
    "    except Exception:\n"                                                                         \
    "        pass\n"

static const char collect_code[] =
    "import sys as _s, struct as _t\n"
    "_m = _s.modules.get('torch.cuda.memory')\n"
    "_c = _s.modules.get('torch.cuda')\n"
    "_r = None\n"
    "if _m is not None and _c is not None and _c.is_initialized() and getattr(\n"
    "        _m, 'get_allocator_backend', lambda: 'native')() == 'native':\n"
    "    try:\n"
    "        _cx = ('.c', '.cc', '.cpp', '.cxx', '.h', '.hh', '.hpp', '.hxx', '.cu', '.cuh', '.inl', '.s', '.S')\n"
    "        def _py(_x, _cx=_cx):\n"
    "            _n = str(_x.get('filename') or '')\n"
    "            return _n not in ('', '?\?') and not _n.endswith(_cx) and '(' not in str(_x.get('name', ''))\n"
    "        _sn = _m._snapshot(); _sg = _sn['segments']\n"
    "        _st = {'active_allocated': 1, 'active_pending_free': 2, 'inactive': 3}\n"
    "        _ids = {}\n"
    "        _o = bytearray()\n"
    "        _nb = _res = _alc = 0\n"
    "        for _g in _sg:\n"
    "            _res += _g['total_size']\n"
    "            for _b in _g['blocks']:\n"
    "                _k = _st.get(_b['state'], 0)\n"
    "                if _k == 1:\n"
    "                    _alc += _b['size']\n"
    "                _f = [_x for _x in (_b.get('frames') or ()) if _py(_x)][:64] if _k != 3 else []\n"
    "                _o += _t.pack('<QQQQiHHI', _g['address'], _b['address'], _b['size'],\n"
    "                              _b.get('requested_size', _b['size']), _g.get('device', 0), _k, 0, len(_f))\n"
    "                for _x in _f:\n"
    "                    _o += _t.pack('<III', max(int(_x.get('line') or 0), 0) & 0xffffffff,\n"
    "                                  _ids.setdefault(str(_x.get('filename', '')), len(_ids)),\n"
    "                                  _ids.setdefault(str(_x.get('name', '')), len(_ids)))\n"
    "                _nb += 1\n"
    "        _o += _t.pack('<I', len(_ids))\n"
    "        for _x in _ids:\n"
    "            _e = _x.encode('utf-8', 'replace')\n"
    "            _o += _t.pack('<I', len(_e)) + _e\n"
    "        _r = _t.pack('<4sIIQQ', b'GLT1', _nb, len(_sg), _res, _alc) + bytes(_o)\n"
    "    except Exception:\n"
    "        _r = b'X'\n"
    COLLECT_EXTRA;


char *gl_torch_ask_here(size_t *len, struct gl_py_exc *escaped)
{
    return gl_pyapi_run(collect_code, NULL, len, escaped);
}

bool gl_torch_answer_failed(const char *buf, size_t len)
{
    return len == 1 && buf[0] == 'X';
}

void gl_torch_answer_postfork_child(void)
{
    free(atomic_exchange(&kept, NULL)); /* the parent's view is not the child's memory */
}
