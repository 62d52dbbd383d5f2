/* The launcher's usage text (gpuleak --help), as the script printed it:
 * @PROG@ stands for the launcher's name as it was called. */
#include "usage.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#include "strbuf.h"

static const char usage_text[] =
    "usage: @PROG@ run [--output PATTERN] [--depth N] [--signal SIG] [--interval TIME] [--keep N]\n"
    "                 [--free-stacks] [--disable] [--light] [--torch-per-tensor] [--quiet] -- command [args...]\n"
    "       @PROG@ check [--error-exitcode N] [--output DIR] [--wait SECONDS] [--depth N] [--free-stacks] [--full] [--json=FILE]\n"
    "                   [gpuleak-report options] -- command [args...]\n"
    "       @PROG@ snapshot [--timeout SECONDS] PID\n"
    "       @PROG@ attach [--duration TIME] [--output PATTERN] [--depth N] [--light] PID\n"
    "       @PROG@ detach PID\n"
    "       @PROG@ plan --gpu NAME [--gpu-memory SIZE] [--steps N] [--json FILE] [--html FILE]\n"
    "                  [--keep DIR] --sweep NAME=V1,V2,... | --fit NAME=LO..HI -- command ... {NAME} ...\n"
    "       @PROG@ top [--once] [--interval SECONDS] [--top N] [--alloc-fn NAME] PID\n"
    "       @PROG@ report [options] SNAPSHOT      (same options as gpuleak-report)\n"
    "       @PROG@ diff [options] A.snap B.snap [C.snap ...]\n"
    "       @PROG@ merge [options] S1.snap S2.snap ...\n"
    "       @PROG@ html [options] OUT.html SNAP [SNAP ...]\n"
    "       @PROG@ html [options] OUT.html merge S1.snap S2.snap ...\n"
    "       @PROG@ --help | --version\n"
    "\n"
    "run      starts the command with libgpuleak.so preloaded.  Children it starts\n"
    "         inherit the preload and are tracked too, each with its own snapshots.\n"
    "         Every option is checked before the command starts (exit 2).  At the\n"
    "         end, one line on stderr names the snapshots written and the command\n"
    "         that reads them (report; diff for one process's series; merge for\n"
    "         several processes).  gpuleak_memory (the Python helper) is importable.\n"
    "         --output PATTERN   snapshot file names (GPULEAK_OUTPUT): %p pid,\n"
    "                            %h host, %r rank, %n snapshot number, %t unix\n"
    "                            time; a directory puts default names there;\n"
    "                            a device, a FIFO or /dev/fd/N is written in\n"
    "                            place, a symlink refused.\n"
    "                            Default: gpuleak.%p.%n.snap\n"
    "         --depth N          stack frames kept per allocation (GPULEAK_DEPTH,\n"
    "                            default 64, at most 256; 0 keeps no stacks)\n"
    "         --signal SIG       signal that asks for a snapshot (GPULEAK_SIGNAL,\n"
    "                            default USR1; \"none\" to disable)\n"
    "         --interval TIME    also a snapshot every TIME (GPULEAK_INTERVAL:\n"
    "                            90s, 10m, 2h; default off), for long jobs\n"
    "         --keep N           periodic snapshots kept on disk: the first and\n"
    "                            the newest (GPULEAK_KEEP, default 10; 0 = all)\n"
    "         --free-stacks      unwind frees too: a double free's report says\n"
    "                            where the address was first freed\n"
    "                            (GPULEAK_FREE_STACKS=1; one more stack walk per free)\n"
    "         --light            light mode, the production setting (GPULEAK_MODE=light):\n"
    "                            exact bytes and counts, stacks only for\n"
    "                            allocations sampled by bytes (docs/performance.md)\n"
    "         --torch-per-tensor PyTorch allocates every tensor with cudaMallocAsync\n"
    "                            (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync,\n"
    "                            merged with yours), so each tensor is tracked\n"
    "                            with its line instead of the caching allocator's\n"
    "                            segments; PyTorch's memory then behaves as with\n"
    "                            that backend (docs/reporter.md, \"PyTorch\")\n"
    "         --quiet, -q        no end line; the command replaces the launcher\n"
    "                            (same pid, as exec)\n"
    "check    runs the command under gpuleak, then prints the report of each of\n"
    "         its processes' final snapshot on stderr (valgrind-style: the\n"
    "         program's own output stays on stdout): the summary and the leaks\n"
    "         (--full: every section), then one verdict line per process and an\n"
    "         ERROR SUMMARY line.  It exits with the command's status -- or with\n"
    "         N (--error-exitcode) when a report finds a leak (a stack that\n"
    "         leaked at least --min-bytes, e.g. 100M), memory still mapped, a\n"
    "         free CUDA refused, memory never freed that a context teardown\n"
    "         released, or, in PyTorch, a leak by growth: a Python line whose\n"
    "         live tensors grew at each of the last --growth-steps N optimizer\n"
    "         steps (default 3), by --min-bytes in all (docs/pytorch.md).\n"
    "         gpuleak-report's options pass through (--min-bytes, --growth-steps, --top,\n"
    "         --sections, --suppressions, --group-depth, --all-frames, --full-stacks, --native,\n"
    "         --alloc-fn,\n"
    "         --no-default-suppressions, --color; --sections leaks,calls adds\n"
    "         ALLOCATION CALLS).  --json=FILE: one JSON document in FILE (the\n"
    "         verdict lines stay on stderr); never on the command's stdout\n"
    "         unless asked: --json=/dev/fd/N (or /dev/stdout) writes it to that\n"
    "         descriptor, as valgrind's --xml-fd: per process its verdict (pid, rank,\n"
    "         errors, leaked bytes and counts) and its report, then the job's\n"
    "         verdict; same gate and exit status.  With ranks (RANK, OMPI_COMM_WORLD_RANK,\n"
    "         ... set), each verdict names its rank, and the summary the ranks\n"
    "         with errors.  Double frees count as their own kind (the verdict\n"
    "         line, double_frees in JSON, \"; double frees: N\" in the summary);\n"
    "         a leak below --min-bytes says so on its verdict line.\n"
    "         Snapshots go to DIR (--output, kept and named at the end; a\n"
    "         reused DIR works: only the new snapshots are read); without it\n"
    "         to a new $TMPDIR/gpuleak-check.XXXXXX, kept and named only when\n"
    "         a process has errors.  Processes the command leaves running (those\n"
    "         started under check, with gpuleak preloaded) are waited for, up to\n"
    "         --wait SECONDS (default 60), and their final snapshots read; one\n"
    "         still running then is named and fails the check (--error-exitcode,\n"
    "         or status 2 without it); so does one whose report failed (a\n"
    "         damaged snapshot: not checked is not passed).  The --suppressions\n"
    "         file is read before the command starts: a bad rule stops check\n"
    "         there (status 2).\n"
    "snapshot asks a running, preloaded process (or the pid of \"gpuleak run\")\n"
    "         for a snapshot (sends its snapshot signal to gpuleak's own thread,\n"
    "         so no thread of the program is interrupted), waits for the new file\n"
    "         and prints its name.  Refuses when the signal would kill the\n"
    "         process or go to the program's own handler.\n"
    "attach   loads libgpuleak.so into a running process started without it\n"
    "         (through gdb; docs/attach.md) and tracks it from that moment:\n"
    "         snapshot, top and the snapshot signal then work as for a preloaded\n"
    "         process.  Memory made before is counted as such (the ledger's\n"
    "         \"made before attach\" row), never as bad frees.  Refuses in one line\n"
    "         when ptrace is not allowed (Yama ptrace_scope, another user's\n"
    "         process), without gdb, or when the process is tracked already.\n"
    "         --output PATTERN   as for run; relative to the current directory\n"
    "         --depth N          as for run\n"
    "         --light            as for run\n"
    "         --duration TIME    detach after TIME (90s, 10m, 2h)\n"
    "detach   ends an attach: puts back every slot the attach changed, writes a\n"
    "         last snapshot (reason \"detach\"; its name is printed), and leaves\n"
    "         the process running at full speed.\n"
    "top      the live view of a running, preloaded process (or of \"gpuleak\n"
    "         run\"), redrawn every second: live and peak memory per device, the\n"
    "         stacks whose live bytes grow fastest, the last out-of-memory\n"
    "         errors.  It reads the small file the library rewrites each second\n"
    "         (GPULEAK_LIVE_DIR, default /dev/shm/gpuleak-UID); no snapshot is\n"
    "         written.  q quits; --once prints one frame and exits.\n"
    "         (GPULEAK_METRICS=FILE: the same figures in Prometheus' text format,\n"
    "         for node-exporter's textfile collector.)\n"
    "plan     the memory peak of an unmodified PyTorch program on a named card,\n"
    "         without the card (docs/plan.md): for each value of --sweep, {NAME}\n"
    "         is replaced in the command's arguments, and it runs on fakecuda with\n"
    "         the card's profile (--gpu: h100-sxm-80gb, h100-pcie-80gb,\n"
    "         h200-141gb, a100-40gb, a100-80gb, l4, rtx-4090; --gpu-memory\n"
    "         overrides its total) and under gpuleak, ended after N optimizer\n"
    "         steps (--steps, default 3; 0 runs it to the end).  Prints per value\n"
    "         PyTorch's peak allocated and reserved, the predicted device memory\n"
    "         used (gpuleak's device peak + the card's context) and whether it\n"
    "         fits, or OOM; --fit NAME=LO..HI bisects the largest integer that\n"
    "         fits instead; --json FILE writes them; --html FILE draws them (peaks\n"
    "         against the values, the card's total, OOM, the fit) in one page;\n"
    "         --keep DIR keeps each run's output and snapshots.\n"
    "report   runs gpuleak-report on a snapshot.\n"
    "diff, merge, html\n"
    "         run gpuleak-report too, the same program underneath: \"@PROG@ diff\n"
    "         A B\" is \"gpuleak-report diff A B\", \"@PROG@ html OUT.html SNAP...\" is\n"
    "         \"gpuleak-report --html OUT.html SNAP...\" (docs/reporter.md).\n";

char *usage_for(const char *prog)
{
    static const char mark[] = "@PROG@";
    struct strbuf b = {0};
    const char *p = usage_text;
    for (const char *m; (m = strstr(p, mark)) != NULL; p = m + sizeof mark - 1) {
        sb_addn(&b, p, (size_t)(m - p));
        sb_adds(&b, prog);
    }
    sb_adds(&b, p);
    return sb_take(&b);
}

/* The whole text in one write, as the script's cat wrote it: stdio's 4 KiB
 * pipe buffer made two, and `gpuleak --help | grep -q run`, its reader gone
 * after the first, killed the launcher with SIGPIPE on the second. */
noreturn void show_usage(int to_stderr)
{
    int fd = to_stderr ? 2 : 1;
    char *text = usage_for(launcher()->prog);
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    free(text);
    exit(to_stderr ? 2 : 0);
}

void operand_or_die(const char *cmd, const char *a)
{
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        show_usage(0);
    if (a[0] == '-')
        die("%s: unknown option %s", cmd, a);
}

void one_pid_or_die(const char *cmd, int argc, int i)
{
    if (argc - i != 1)
        die("%s: give exactly one PID", cmd);
}
