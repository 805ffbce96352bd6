/*
 * table.c - the command line, declared once: every option with its grammar
 * and help, the shared option groups, and every command with the options it
 * takes, its description and examples.  The parser, --help, the man pages
 * and the bash completion all read this, through the lookups at its end;
 * nothing else lists options.
 */
#include "config.h"

#include <stddef.h>

#include "sim/cli/cli.h"
#include "traces/scale.h"

/*
 * A document `make install` puts in the documentation directory
 * (dist_doc_DATA): the manual cites it where it is installed.
 */
#ifndef GMS_DOCDIR
#define GMS_DOCDIR "/usr/local/share/doc/gpumemsim"
#endif
#define DOC(file) GMS_DOCDIR "/" file
#define STR_(x) #x
#define STR(x) STR_(x)	/* a number's digits, for the text */

static const char *const formats[] = { "text", "json", NULL };
static const char *const check_formats[] = { "text", "json", "tap", NULL };
static const char *const placements[] = { "model", "recorded", "driver", NULL };
static const char *const unknown_frees[] = { "error", "warn", NULL };
static const char *const by[] = { "balanced", "memory", NULL };

#define MAX_POINTS 100000000ULL

const struct cli_optdef cli_optdefs[OPT__N] = {
	[OPT_DEVICE] = { OPT_DEVICE, 0, "device", "n", K_INDEX,
	    "PyTorch snapshots and profiles: the device to read (default: the one that "
	    "holds memory; a snapshot with several is refused, listing them)", .max = 4096 },
	[OPT_UNKNOWN_FREES] = { OPT_UNKNOWN_FREES, 0, "unknown-frees", "error|warn", K_CHOICE,
	    "frees of ids the trace never allocated: an error, or counted and warned "
	    "about, for traces that start mid-run (default: error, or warn when the trace "
	    "says \"starts_mid_run\": true)", .choices = unknown_frees },
	[OPT_CAPACITY] = { OPT_CAPACITY, 'c', "capacity", "size", K_SIZE,
	    "the most the allocator may reserve, e.g. 24GiB (default: unlimited)" },
	[OPT_GPU] = { OPT_GPU, 'g', "gpu", "model", K_GPU,
	    "run on a catalogued GPU instead of --capacity: its memory less the context "
	    "overhead (and for BFC policies the framework's own limit for it); "
	    "--gpu=list lists the models, and a size (24GiB) is a card the catalogue "
	    "lacks", .complete = "gpu" },
	[OPT_CONTEXT_OVERHEAD] = { OPT_CONTEXT_OVERHEAD, 0, "context-overhead", "size", K_SIZE0,
	    "memory the CUDA context and libraries take off a GPU's (default: {}; "
	    "the H200 measured 526.8 MiB)", .dflt = "512MiB" },
	[OPT_POLICY] = { OPT_POLICY, 'p', "policy", "spec", K_POLICY,
	    "an allocator policy and its settings, as one word ('grow-only') or with "
	    "key=value settings after a space or a colon ('caching "
	    "alloc_conf=expandable_segments:True', 'grow-only:flavor=jax'); 'gpumemsim "
	    "policies' lists them", .repeat = 1, .complete = "policy" },
	[OPT_POLICIES] = { OPT_POLICIES, 0, "policies", "list", K_POLICIES,
	    "several policies at once, comma-separated: caching,grow-only:flavor=jax "
	    "(the same as one --policy each)", .complete = "policy" },
	[OPT_OPTION] = { OPT_OPTION, 0, "option", "key=value", K_KV,
	    "a policy setting, for every policy that has the key, or "
	    "<policy>.<key>=<value> for one (repeatable)", .repeat = 1 },
	[OPT_ALLOC_CONF] = { OPT_ALLOC_CONF, 0, "alloc-conf", "conf", K_STRING,
	    "caching: PYTORCH_CUDA_ALLOC_CONF settings, e.g. "
	    "expandable_segments:True,max_split_size_mb:128 (default: those a snapshot "
	    "recorded; --alloc-conf= for PyTorch's defaults)", .complete = "conf" },
	[OPT_PLACEMENT] = { OPT_PLACEMENT, 0, "placement", "model|recorded", K_CHOICE,
	    "where new segments land: the model of the CUDA driver's rules measured on "
	    "the H200 (" DOC("placement.md") "; 'driver' is another name for it), or the "
	    "addresses of the trace's segment_alloc events, the model placing what "
	    "they do not cover (default: recorded for the caching policy under the "
	    "recording's own settings, on a trace that has them; else model)",
	    .choices = placements },
	[OPT_FORMAT] = { OPT_FORMAT, 'f', "format", "text|json", K_CHOICE,
	    "output format (default: {})", .choices = formats, .dflt = "text" },
	[OPT_OUTPUT] = { OPT_OUTPUT, 'o', "output", "file", K_FILE,
	    "write the report to this file instead of standard output ('-'), whole or "
	    "not at all", .complete = "file" },
	[OPT_TIMELINE] = { OPT_TIMELINE, 0, "timeline", "file.csv", K_FILE,
	    "write live, allocated and reserved bytes at every change as CSV ('-': "
	    "standard output, and the report goes to standard error)", .complete = "file" },
	[OPT_POINTS] = { OPT_POINTS, 0, "points", "n", K_COUNT,
	    "the timeline as an envelope of about n rows that keeps every peak",
	    .max = MAX_POINTS },
	[OPT_QUIET] = { OPT_QUIET, 'q', "quiet", NULL, K_FLAG,
	    "no warnings on standard error, only errors" },
	[OPT_JOBS] = { OPT_JOBS, 'j', "jobs", "n", K_THREADS,
	    "simulations at once (default: {})", .max = 1024 },
	[OPT_RANKS] = { OPT_RANKS, 0, "ranks", NULL, K_FLAG,
	    "the traces are the ranks of one distributed job, one recording a rank: "
	    "files, or directories of them (the rank from each file's name, rank3; "
	    "else a profile's own distributedInfo; else _3 before the extension; else "
	    "their order); each rank on a GPU of its own, and the job's answer: the "
	    "worst rank" },
	[OPT_FAIL_ON_OOM] = { OPT_FAIL_ON_OOM, 0, "fail-on-oom", NULL, K_FLAG,
	    "exit 1 when the run runs out of memory" },
	[OPT_CHECK] = { OPT_CHECK, 0, "check", NULL, K_FLAG,
	    "verify the policy's invariants after every event (exit 5 if one breaks)" },
	[OPT_BY] = { OPT_BY, 0, "by", "balanced|memory", K_CHOICE,
	    "how to pick the winner: the least memory among the policies whose steady "
	    "driver time is within --time-bound of the least, or memory alone "
	    "(default: {})", .choices = by, .dflt = "balanced" },
	[OPT_TIME_BOUND] = { OPT_TIME_BOUND, 0, "time-bound", "ratio", K_RATIO,
	    "--by=balanced: how much more steady driver time than the least a winner may "
	    "take (default: {}, twice the time; 1 ms more is always allowed)", .dflt = "100%" },
	[OPT_GPUS] = { OPT_GPUS, 0, "gpus", "list", K_GPUS,
	    "the GPU models to tabulate, comma-separated, or sizes for cards the catalogue "
	    "lacks (A10,24GiB; default: every catalogued one)",
	    .complete = "gpu" },
	[OPT_MAX_PEAK_RESERVED] = { OPT_MAX_PEAK_RESERVED, 0, "max-peak-reserved", "size",
	    K_SIZE0, "peak reserved at most this" },
	[OPT_MAX_FRAGMENTATION] = { OPT_MAX_FRAGMENTATION, 0, "max-fragmentation", "ratio",
	    K_RATIO, "1 - peak allocated / peak reserved at most this (0.15 or 15%)" },
	[OPT_MAX_OVERHEAD] = { OPT_MAX_OVERHEAD, 0, "max-overhead", "ratio", K_RATIO,
	    "peak reserved / live peak - 1 at most this (0.2 or 20%)" },
	[OPT_MUST_FIT] = { OPT_MUST_FIT, 0, "must-fit", "size|gpu", K_FIT,
	    "runs without running out of memory in this capacity, or on this GPU (its "
	    "memory less the context overhead)", .complete = "gpu" },
	[OPT_MAX_DEVICE_ALLOCS] = { OPT_MAX_DEVICE_ALLOCS, 0, "max-device-allocs", "n",
	    K_COUNT, "at most n segment allocations", .max = 2000000000ULL },
	[OPT_BASELINE] = { OPT_BASELINE, 0, "baseline", "file", K_FILE,
	    "a saved 'run --format=json' result: no metric may grow past it by more than "
	    "--tolerance", .complete = "file" },
	[OPT_TOLERANCE] = { OPT_TOLERANCE, 0, "tolerance", "ratio", K_RATIO,
	    "for --baseline: how much a metric may grow (0.02 or 2%; default: {})", .dflt = "0" },
	[OPT_ANY_TRACE] = { OPT_ANY_TRACE, 0, "any-trace", NULL, K_FLAG,
	    "for --baseline: take a baseline saved from a trace of another name (the job's "
	    "recording named anew on each CI run); its policy must still be this run's" },
	[OPT_MUST_BE_COMPLETE] = { OPT_MUST_BE_COMPLETE, 0, "must-be-complete", NULL, K_FLAG,
	    "the trace holds the whole job: one cut short by its out of memory, one that "
	    "starts mid-run (a ring buffer that dropped its start, a snapshot without "
	    "history), cut off, or whose numbers disagree fails (without it, such a trace "
	    "is checked as far as it goes, and said to be incomplete)" },
	[OPT_MAP] = { OPT_MAP, 0, "map", NULL, K_FLAG,
	    "draw the memory map instead of the timeline" },
	[OPT_AT] = { OPT_AT, 0, "at", "n", K_INDEX,
	    "--map: at this event (0-based) instead", .max = UINT64_MAX >> 1, .repeat = 1 },
	[OPT_VALUE] = { OPT_VALUE, 0, "value", "n", K_COUNT,
	    "build the job at this value (again for several; default: the recorded values "
	    "and 2, 4 and 8 times the largest)", .max = (unsigned long long)SCALE_VALUE_MAX *
	    SCALE_EXTRAPOLATION_MAX, .repeat = 1 },
	[OPT_TITLE] = { OPT_TITLE, 0, "title", "text", K_STRING, "the picture's title" },
	[OPT_TOUCH] = { OPT_TOUCH, 0, "touch", NULL, K_FLAG,
	    "write every block once (cudaMemset), so the memory is truly backed" },
	[OPT_DEVICE_LOG] = { OPT_DEVICE_LOG, 0, "device-log", NULL, K_FLAG,
	    "list every device call the driver answered, in order, with the address it "
	    "chose: op (a cudaMalloc, f cudaFree; expandable segments: r and R an address "
	    "range reserved and released, m and u pages mapped and unmapped), address, "
	    "size (JSON: \"device_calls\" in each result; " DOC("placement.md") ")" },
	[OPT_NO_CACHE_BASELINE] = { OPT_NO_CACHE_BASELINE, 0, "no-cache-baseline", NULL,
	    K_FLAG, "replay with no-cache too: the device calls and time caching saves" },
	[OPT_CUDA_DEVICE] = { OPT_CUDA_DEVICE, 0, "cuda-device", "n", K_INDEX,
	    "the GPU to replay on (default: {})", .max = 4096, .dflt = "0" },
	[OPT_FAIL_ON_MISMATCH] = { OPT_FAIL_ON_MISMATCH, 0, "fail-on-mismatch", NULL, K_FLAG,
	    "exit 1 unless the replay agrees with the simulation" },
	[OPT_JOB] = { OPT_JOB, 0, "job", "'trace key=value ...'", K_STRING,
	    "one job: its trace, then its settings (policy, the policy's own, start, repeat, "
	    "limit, fraction, name, duration, cc); once per job", .repeat = 1,
	    .complete = "file" },
	[OPT_SCENARIO] = { OPT_SCENARIO, 0, "scenario", "file.json", K_FILE,
	    "the jobs (and the GPU) from a JSON file, for CI", .complete = "file" },
	[OPT_OFFSETS] = { OPT_OFFSETS, 0, "offsets", "n", K_COUNT,
	    "also run n scenarios with the jobs after the first started at random offsets, "
	    "and say how often one runs out of memory, and the worst case", .max = 100000 },
	[OPT_SEED] = { OPT_SEED, 0, "seed", "n", K_INDEX,
	    "--offsets: the random offsets' seed (default: {}); the same seed, the same "
	    "offsets", .max = UINT64_MAX >> 1, .dflt = "1" },
	[OPT_RECOMMEND] = { OPT_RECOMMEND, 0, "recommend", NULL, K_FLAG,
	    "per-job limits, in each framework's terms, under which every job fits alone "
	    "and all fit together (checked by a run), or why none exist" },
	[OPT_PLOT] = { OPT_PLOT, 0, "plot", "file.svg|file.png", K_FILE,
	    "draw the jobs' reservations stacked over time, the GPU's use and its memory, "
	    "and where a job ran out (needs gnuplot)", .complete = "file" },
	[OPT_SCHEDULE] = { OPT_SCHEDULE, 0, "schedule", "file.csv", K_FILE,
	    "write the scenario's merged order as CSV (step,job,what,event,pass,t_us), for "
	    "stepping real frameworks in the same order (the source's "
	    "replay/share_frameworks.py)",
	    .complete = "file" },
	[OPT_BY_SITE] = { OPT_BY_SITE, 0, "by-site", NULL, K_FLAG,
	    "say what holds the memory at the peak reservation (and at the OOM): the live "
	    "bytes by call site, largest first, beside the bytes reserved but not allocated "
	    "(a second pass over the trace)" },
	[OPT_TOP] = { OPT_TOP, 0, "top", "n", K_COUNT,
	    "call sites listed before the rest are folded into one row (default: {})",
	    .max = 100000, .dflt = "10" },
	[OPT_PLACEMENTS] = { OPT_PLACEMENTS, 0, "placements", "n", K_COUNT,
	    "replay under n placements: the model's and n - 1 in a process that also "
	    "reserves what the trace does not show (library workspaces, buffers), drawn "
	    "from seeds 1 .. n-1; report the range of peak reserved and, under a capacity, "
	    "how many run out of memory and where (" DOC("placement.md") ")", .max = 4096 },
	[OPT_BY_STACK] = { OPT_BY_STACK, 0, "by-stack", NULL, K_FLAG,
	    "say what holds the memory at the peak reservation (and at the OOM, and at "
	    "each --at) as a tree of call stacks, callers above callees, each frame with "
	    "the live bytes under it (a second pass over the trace; the stacks are the "
	    "trace's: a snapshot's frames, a native trace's \"stack\")" },
	[OPT_DEPTH] = { OPT_DEPTH, 0, "depth", "n", K_COUNT,
	    "keep the n outermost frames of each stack: the bytes under deeper frames stay "
	    "with the last one kept (default: every frame)", .max = 100000 },
	[OPT_FRAMES] = { OPT_FRAMES, 0, "frames", "pattern", K_STRING,
	    "keep only the frames that match this shell pattern (fnmatch), e.g. "
	    "'*/myproject/*': a frame left out passes its bytes to the callers kept" },
	[OPT_FOLDED] = { OPT_FOLDED, 0, "folded", NULL, K_FLAG,
	    "write folded stacks instead of the report, for flame-graph tools (flamegraph.pl, "
	    "speedscope, inferno): a line per stack, \"outer;...;inner BYTES\", at the first "
	    "--at, else at the OOM, else at the peak reservation" },
	[OPT_FLAME] = { OPT_FLAME, 0, "flame", NULL, K_FLAG,
	    "draw the live memory by call stack as an icicle graph (callers on top, widths "
	    "in bytes, each frame's bytes on hover; SVG), at --at, else at the OOM, else at "
	    "the peak reservation" },
	[OPT_HELP] = { OPT_HELP, 'h', "help", NULL, K_FLAG, "show this help" },
};

static const enum cli_opt g_trace[] = { OPT_DEVICE, OPT_UNKNOWN_FREES, OPT_NONE };
static const enum cli_opt g_target[] = { OPT_CAPACITY, OPT_GPU, OPT_CONTEXT_OVERHEAD,
	OPT_NONE };
static const enum cli_opt g_policy[] = { OPT_POLICY, OPT_OPTION, OPT_ALLOC_CONF, OPT_NONE };
static const enum cli_opt g_policies[] = { OPT_POLICY, OPT_POLICIES, OPT_OPTION,
	OPT_ALLOC_CONF, OPT_NONE };
static const enum cli_opt g_output[] = { OPT_FORMAT, OPT_OUTPUT, OPT_NONE };
static const enum cli_opt g_timeline[] = { OPT_TIMELINE, OPT_POINTS, OPT_NONE };
static const enum cli_opt g_progress[] = { OPT_QUIET, OPT_NONE };
static const enum cli_opt g_scaled[] = { OPT_AT, OPT_VALUE, OPT_NONE };

const char *const cli_group_names[CLI_NGROUPS] = { "The trace", "Where it runs",
	"The policy", "The policies", "Output", "Timeline", "Progress",
	"The job at a value nobody recorded" };
const enum cli_opt *const cli_group_opts[CLI_NGROUPS] = { g_trace, g_target, g_policy,
	g_policies, g_output, g_timeline, g_progress, g_scaled };

/* --- the commands ------------------------------------------------------ */

static const struct cli_use run_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, rank3; else a profile's "
	  "own distributedInfo; else _3 before the extension; else their order): each "
	  "rank's run, then the job's: the worst rank "
	  "and the spread, who runs out first under a capacity, and what the worst rank "
	  "holds that the least does not, by call stack" },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_PLACEMENTS },
	{ .id = OPT_JOBS, .help = "placements replayed at once (default: {})" },
	{ .id = OPT_FAIL_ON_OOM, .help = "exit 1 when the run runs out of memory (with --placements: "
	  "under any placement)" },
	{ .id = OPT_CHECK, .kinds = INPUTS_TRACE },
	{ .id = OPT_BY_SITE, .kinds = INPUTS_TRACE },
	{ .id = OPT_BY_STACK, .kinds = INPUTS_TRACE },
	{ .id = OPT_TOP, .help = "call sites listed before the rest are folded into one row; with "
	  "--by-stack, callees listed under each frame (default: {})" },
	{ .id = OPT_DEPTH, .kinds = INPUTS_TRACE },
	{ .id = OPT_FRAMES, .kinds = INPUTS_TRACE },
	{ .id = OPT_FOLDED, .kinds = INPUTS_TRACE },
	{ .id = OPT_AT, .help = "with --by-site, --by-stack or --folded: the live memory after this event "
	  "(0-based) too (twice at most)", .kinds = INPUTS_TRACE },
	{ .id = OPT_TIMELINE, .kinds = INPUTS_TRACE },
	{ .id = OPT_POINTS, .kinds = INPUTS_TRACE },
	{ .id = OPT_NONE },
};

static const struct cli_use compare_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, else their order): each "
	  "policy on every rank, its worst rank side by side (peak, spread, who runs out "
	  "first), and the policy under which the worst rank reserves least (JSON: {schema, "
	  "capacity, ranks_from, ranks, results: [{policy, worst_rank, peak_reserved, "
	  "least_rank, spread, ooms, first_oom} or {policy, not_run}], least_memory})" },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_BY_SITE, .help = "say, for each policy, what holds the memory at its peak reservation "
	  "(and at its OOM): the live bytes by call site beside what it reserved and did not "
	  "allocate (JSON: \"sites\" in each result, as run's)", .kinds = INPUTS_TRACE },
	{ .id = OPT_TOP, .help = "call sites listed before the rest are folded into one row; with two "
	  "traces, stacks listed that grew and that shrank (default: {})", .kinds = INPUTS_TRACE | INPUTS_PAIR },
	{ .id = OPT_DEPTH, .help = "two traces: stacks compared by their n outermost frames", .kinds = INPUTS_PAIR },
	{ .id = OPT_FRAMES, .help = "two traces: stacks compared by the frames that match this shell pattern "
	  "alone (fnmatch), e.g. '*/myproject/*'", .kinds = INPUTS_PAIR },
	{ .id = OPT_FOLDED, .help = "two traces: write every stack's bytes before and after, \"outer;...;inner "
	  "BEFORE AFTER\", instead of the report (flamegraph.pl draws it as a differential "
	  "flame graph)", .kinds = INPUTS_PAIR },
	{ .id = OPT_BY, .kinds = INPUTS_TRACE },
	{ .id = OPT_TIME_BOUND, .kinds = INPUTS_TRACE },
	{ .id = OPT_JOBS },
	{ .id = OPT_TIMELINE, .kinds = INPUTS_TRACE },
	{ .id = OPT_POINTS, .kinds = INPUTS_TRACE },
	{ .id = OPT_POLICIES, .kinds = INPUTS_TRACE | INPUTS_RANKS },
	{ .id = OPT_NONE },
};

/* --at and --value where a command takes recordings at several values for its trace */
#define SCALED_AT "instead of one trace: recordings of the job at several values of " \
	"one size (batch, sequence length), each trace after --at and its value, as scale " \
	"takes them"
#define SCALED_VALUE(what) "with --at: " what " the job built at this value (once)"

static const struct cli_use check_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job, each on a GPU of its "
	  "own (files, or directories of them; the rank from each file's name, else their "
	  "order): every check for every rank, named after it (\"rank 3 must_fit\"); "
	  "exit 1 when any fails" },
	{ .id = OPT_AT, .help = SCALED_AT, .kinds = INPUTS_SCALED },
	{ .id = OPT_VALUE, .help = SCALED_VALUE("check"), .kinds = INPUTS_SCALED },
	{ .id = OPT_MAX_PEAK_RESERVED },
	{ .id = OPT_MAX_FRAGMENTATION },
	{ .id = OPT_MAX_OVERHEAD },
	{ .id = OPT_MUST_FIT },
	{ .id = OPT_MAX_DEVICE_ALLOCS },
	{ .id = OPT_BASELINE, .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_TOLERANCE, .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_ANY_TRACE, .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_MUST_BE_COMPLETE },
	{ .id = OPT_TOP, .help = "with a --baseline saved with its stacks: the stacks listed that "
	  "grew since it (default: {})", .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_DEPTH, .help = "with a --baseline saved with its stacks: stacks compared by their "
	  "n outermost frames", .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_FRAMES, .help = "with a --baseline saved with its stacks: stacks compared by the "
	  "frames that match this shell pattern alone (fnmatch), e.g. '*/myproject/*'",
	  .kinds = INPUTS_TRACE | INPUTS_SCALED },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_PLACEMENTS, .help = "require --capacity, --must-fit and --max-peak-reserved to hold "
	  "under every one of n placements: the model's and n - 1 with hidden reservations "
	  "(library workspaces, buffers; " DOC("placement.md") ")" },
	{ .id = OPT_JOBS, .help = "placements replayed at once (default: {})" },
	{ .id = OPT_FORMAT, .help = "output format: text, JSON, or TAP with one test per check "
	  "(default: {})", .choices = check_formats },
	{ .id = OPT_NONE },
};

static const struct cli_use plan_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job, each on a GPU of its "
	  "own (files, or directories of them; the rank from each file's name, else their "
	  "order): every rank's plan, then the job's: the capacity every rank needs and "
	  "which GPUs fit them all" },
	{ .id = OPT_AT, .help = SCALED_AT, .kinds = INPUTS_SCALED },
	{ .id = OPT_VALUE, .help = SCALED_VALUE("plan") "; without it, the largest value that fits each GPU", .kinds = INPUTS_SCALED },
	{ .id = OPT_GPUS },
	{ .id = OPT_GPU, .help = "the one GPU model to tabulate (--gpus for several)" },
	{ .id = OPT_CONTEXT_OVERHEAD, .help = "taken off each GPU's memory for the CUDA context and "
	  "libraries (default: {})" },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_PLACEMENTS, .help = "also the smallest capacity that fits under every one of n "
	  "placements: the model's and n - 1 with hidden reservations (library "
	  "workspaces, buffers; " DOC("placement.md") "); the GPU table stays the model's" },
	{ .id = OPT_JOBS },
	{ .id = OPT_NONE },
};

static const struct cli_use scale_opts[] = {
	{ .id = OPT_AT, .help = "the value (batch, sequence length, ...) the trace after it was recorded at; "
	  "one for each trace, in their order" },
	{ .id = OPT_VALUE },
	{ .id = OPT_OUTPUT, .help = "write the trace built at the one --value to this file (.json, .jsonl, "
	  "either .gz; '-': JSON Lines to standard output, the report to standard error)" },
	{ .id = OPT_PLOT, .help = "draw the curve: peak reserved and allocated against the value, the "
	  "capacity and the largest value that fits it (needs gnuplot)" },
	{ .id = OPT_NONE },
};

static const struct cli_use plot_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, rank3; else a profile's "
	  "own distributedInfo; else _3 before the extension; else their order): each "
	  "rank's reserved and allocated bytes (the first policy's) on one timeline, "
	  "against the share of its recording (ranks advance together)" },
	{ .id = OPT_OUTPUT, .help = "where to draw: file.svg or file.png (required; '-' writes SVG to "
	  "standard output)" },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_POINTS, .help = "timeline rows kept, peaks included (default: {})", .dflt = "2000" },
	{ .id = OPT_MAP, .kinds = INPUTS_TRACE },
	{ .id = OPT_FLAME, .kinds = INPUTS_TRACE },
	{ .id = OPT_DEPTH, .kinds = INPUTS_TRACE },
	{ .id = OPT_FRAMES, .kinds = INPUTS_TRACE },
	{ .id = OPT_AT, .help = "--map, --flame: at this event (0-based) instead", .kinds = INPUTS_TRACE },
	{ .id = OPT_TITLE },
	{ .id = OPT_JOBS },
	{ .id = OPT_NONE },
};

static const struct cli_use report_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, rank3; else a profile's "
	  "own distributedInfo; else _3 before the extension; else their order): the "
	  "page is the worst rank's (the first to run out, else the largest peak), with a "
	  "table of every rank and a comparison with the least rank, by call stack" },
	{ .id = OPT_OUTPUT, .help = "where to write the page, e.g. report.html (required; '-': standard "
	  "output)" },
	{ .id = OPT_PLACEMENT },
	{ .id = OPT_POINTS, .help = "timeline points kept per series, peaks included (default: {})",
	  .dflt = "1000" },
	{ .id = OPT_TOP, .help = "call sites listed in each table before the rest are folded into one row "
	  "(default: {})" },
	{ .id = OPT_TITLE, .help = "the page's title (default: the trace's name)" },
	{ .id = OPT_AT, .help = "the allocator's state after this event (0-based) too, for every policy: "
	  "its map, and what it did with the event's request (which free block it took, or "
	  "why none served it); up to 13 times" },
	{ .id = OPT_JOBS },
	{ .id = OPT_NONE },
};

static const struct cli_use tune_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, else their order): the "
	  "setting is tuned on the worst rank under the recorded settings, then every rank "
	  "runs with it (JSON: {schema, ranks_from, tuned_rank, tune: tune's object, "
	  "job_before, alloc_conf, job_after}; exit 1 when a rank still runs out)" },
	{ .id = OPT_AT, .help = SCALED_AT, .kinds = INPUTS_SCALED },
	{ .id = OPT_VALUE, .help = SCALED_VALUE("tune"), .kinds = INPUTS_SCALED },
	{ .id = OPT_JOBS },
	{ .id = OPT_NONE },
};
static const struct cli_use info_opts[] = {
	{ .id = OPT_RANKS, .help = "the traces are the ranks of one distributed job (files, or "
	  "directories of them; the rank from each file's name, rank3; else a profile's "
	  "own distributedInfo; else _3 before the extension; else their order): each "
	  "rank's counts and live peak side by side, and which rank's live memory peaks "
	  "highest" },
	{ .id = OPT_TOP, .help = "call sites listed at the live peak before the rest are folded into "
	  "one row (default: {})", .kinds = INPUTS_TRACE },
	{ .id = OPT_NONE },
};
static const struct cli_use policies_opts[] = { { .id = OPT_NONE } };
static const struct cli_use oom_opts[] = { { .id = OPT_NONE } };

static const struct cli_use convert_opts[] = {
	{ .id = OPT_OUTPUT, .help = "the native trace to write, in place of <out>" },
	{ .id = OPT_NONE }
};

static const struct cli_use share_opts[] = {
	{ .id = OPT_JOB },
	{ .id = OPT_SCENARIO },
	{ .id = OPT_CAPACITY, .help = "the GPU's whole memory, e.g. 80GiB (or --gpu); every job's CUDA "
	  "context comes out of it" },
	{ .id = OPT_GPU, .help = "the GPU, a catalogued model (its memory and compute capability)" },
	{ .id = OPT_CONTEXT_OVERHEAD, .help = "each job's CUDA context and libraries, taken from the GPU "
	  "when the job starts (default: {}; the H200 measured 526.8 MiB)" },
	{ .id = OPT_TIMELINE, .help = "write each job's reservation, the GPU's use and its free memory at "
	  "every change as CSV (t_us,<job>...,used,free)" },
	{ .id = OPT_PLOT },
	{ .id = OPT_SCHEDULE },
	{ .id = OPT_FAIL_ON_OOM, .help = "exit 1 when a job runs out of memory" },
	{ .id = OPT_OFFSETS },
	{ .id = OPT_SEED },
	{ .id = OPT_RECOMMEND },
	{ .id = OPT_JOBS },
	{ .id = OPT_NONE },
};

static const struct cli_use replay_opts[] = {
	{ .id = OPT_CAPACITY, .help = "the most the allocator may reserve, enforced as PyTorch enforces "
	  "its memory fraction: a capped replay on a large GPU meets a small GPU's OOM; with "
	  "a scenario, the GPU's memory the jobs share" },
	{ .id = OPT_JOB },
	{ .id = OPT_SCENARIO },
	{ .id = OPT_GPU, .help = "with a scenario: the GPU the jobs share, a catalogued model", .kinds = INPUTS_JOBS },
	{ .id = OPT_CONTEXT_OVERHEAD, .help = "with a scenario: each job's CUDA context in the prediction "
	  "(the H200 measured 526.8 MiB)", .kinds = INPUTS_JOBS },
	{ .id = OPT_TOUCH, .kinds = INPUTS_TRACE },
	{ .id = OPT_DEVICE_LOG, .kinds = INPUTS_TRACE },
	{ .id = OPT_NO_CACHE_BASELINE, .kinds = INPUTS_TRACE },
	{ .id = OPT_CUDA_DEVICE },
	{ .id = OPT_FAIL_ON_MISMATCH },
	{ .id = OPT_POLICY, .kinds = INPUTS_TRACE },
	{ .id = OPT_OPTION, .kinds = INPUTS_TRACE },
	{ .id = OPT_ALLOC_CONF, .kinds = INPUTS_TRACE },
	{ .id = OPT_NONE },
};

const struct cli_command cli_commands[] = {
	{ "run", "<trace> | --ranks <trace|dir>...", "replay a trace through one allocator policy and report",
	  "Replay a trace through one allocator policy and report peak reservation, "
	  "fragmentation, device calls and, under a capacity, the event where memory runs "
	  "out: what was live, allocated and reserved there, and the largest free block.\n\n"
	  "When the trace says what the recording allocator did (PyTorch snapshots, RMM "
	  "logs, converted traces), the report compares the simulation with it. An "
	  "incomplete trace (a snapshot that starts mid-run, one with no history, a log "
	  "cut short) is said so in every output, with how it bounds the numbers.\n\n"
	  "A recording runs as it was recorded: a snapshot's allocator settings are the "
	  "caching policy's (said on its policy line, \"as recorded\"); one dumped at or "
	  "after its OOM replays the request that failed and is marked CUT SHORT BY ITS OUT "
	  "OF MEMORY; one that reached a memory limit (its OOM, its retries) says the "
	  "interval the limit lay in, and a --capacity inside it is compared with the "
	  "recording. Under its own settings its segments go where the recording put "
	  "them (\"placement recorded\"; the placement model for those it did not "
	  "have); under another setting or policy, where the placement model puts them.",
	  "gpumemsim run traces/resnet50-train-b32.json --policy=caching --capacity=3GiB\n"
	  "# the same job under PyTorch's expandable segments, as JSON:\n"
	  "gpumemsim run traces/resnet50-train-b32.json --policy 'caching "
	  "alloc_conf=expandable_segments:True' --format=json\n"
	  "gpumemsim run snapshot.pickle --gpu=A10 --timeline=run.csv --points=2000\n"
	  "# what holds the memory at the peak, and at the OOM on a 24 GiB card:\n"
	  "gpumemsim run traces/gpt2-train-varlen-bf16.jsonl.gz --by-site --capacity=24GiB\n"
	  "# a distributed job, one snapshot a rank: which rank runs out first on a 40 GiB card\n"
	  "gpumemsim run --ranks snapshots/ --gpu=A100-40GB\n",
	  "== OUTPUT\n"
	  "The text report gives the peaks (reserved, allocated, requested, live), "
	  "fragmentation (1 - peak allocated / peak reserved), overhead (peak reserved "
	  "over the live peak) and the device calls. --format=json prints one object with "
	  "at least: trace, policy, options, capacity (null or bytes), events, peak_live, "
	  "peak_reserved, peak_allocated, peak_requested, device_allocs, device_frees, "
	  "alloc_retries, fragmentation, oom (null or {event, size, live, allocated, "
	  "reserved, largest_free, at, mark}), observed and incomplete. oom.event is the "
	  "0-based index into the trace's events; sizes are bytes.\n\n"
	  "A request that does not fit and that PyTorch catches is not an OOM: a cuDNN "
	  "convolution plan's workspace (the stack's innermost frame is run_conv_plan), "
	  "after which PyTorch tries the next plan, whose workspace the recording does not "
	  "hold (taken as none). The text counts them under \"caught OOMs\"; the JSON "
	  "gains caught_ooms and first_caught_oom after alloc_retries when there are some.\n\n"
	  "With --ranks the traces are the ranks of one job, each run on a GPU of its own: "
	  "a line a rank (peak reserved, peak allocated, device calls, fits or the OOM's "
	  "event), then JOB: the worst rank and the spread between the most and the least "
	  "reserved, or under a capacity how many ranks run out and the first (the ranks of "
	  "a job advance together, so the first is the one that ran out earliest in the "
	  "share of its own events); for recordings, how many ranks reproduced their "
	  "recording exactly; then what the worst rank holds that the least does not, by "
	  "call stack, as compare BEFORE AFTER says it. With --placements=N each rank is also "
	  "run under N placements (its range under its line; how many ranks run out under "
	  "some). --fail-on-oom exits 1 when any rank runs out (under any placement). The JSON is {schema, policy, capacity, ranks_from, ranks: [run's "
	  "object with rank and path], job: {ranks, worst_rank, peak_reserved, least_rank, "
	  "spread, ooms, first_oom, observed, reproduced, worst_against_least}} "
	  "(" DOC("JSON.md") ").\n\n"
	  "With --placements=N the run is the model's placement's, and a PLACEMENTS "
	  "paragraph gives the range of peak reserved over the N placements and, under a "
	  "capacity, how many ran out of memory and at which events; the JSON gains "
	  "\"placements\": {n, peak_reserved: {min, max, model}, oom: {count, share, "
	  "first_event, last_event}, runs: [{seed, peak_reserved, oom_event}]}. The same "
	  "seed is the same placement on every machine.\n\n"
	  "With --by-site the text ends with a table per moment (the peak reservation, "
	  "and the OOM when there is one): the live bytes of each call site, their count, "
	  "their share of what was reserved and the events that made the oldest and the "
	  "newest of them; then live + block rounding + reserved but not allocated, which "
	  "add up to the reservation. The JSON gains \"sites\": a list of {moment, event, "
	  "live, count, reserved, allocated, rounding, reserved_free, largest_free, sites: "
	  "[{site, bytes, count, share, first_event, last_event}], other}. At the OOM the "
	  "request that failed is not live, and the policy's numbers are after its failed "
	  "retry. A call site is the trace's \"at\"; allocations without one are \"(no call site)\".\n",
	  .groups = G_TRACE | G_TARGET | G_POLICY | G_OUTPUT | G_TIMELINE | G_PROGRESS,
	  .opts = run_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS,
	  .min_args = 1, .max_args = 1, .by_framework = 1, .exec = cmd_run },
	{ "compare", "<trace> [<after>] | --ranks <trace|dir>...",
	  "run several policies on a trace side by side, or two traces, and say what grew",
	  "Run several allocator policies on one trace, read once and replayed through every "
	  "policy on every core, and compare "
	  "peak reservation, overhead over the live peak, fragmentation, device calls, the "
	  "time those calls take in the driver, and whether each fits.\n\n"
	  "The driver time is priced from the cudaMalloc, cudaFree and mapping costs "
	  "measured on an H200 by size (the source's replay/results-h200/drivercost.txt): an "
	  "estimate "
	  "of what each policy spends in the driver, which is where turning caching off "
	  "costs a training job its speed. Its steady part, the calls after the "
	  "reservation last grew, is what every further iteration of the job pays; the "
	  "warm-up before it is paid once.\n\n"
	  "The winner fits and, among the policies whose steady driver time is within "
	  "--time-bound of the least, reserves least (--by=memory: least memory "
	  "alone); ties go to fewer device calls. 'ideal' is the bound, never the winner; "
	  "'preallocate' without --capacity or --gpu has no size to take, and says so, as do "
	  "RMM's pool, arena and binning, which take half the GPU's free memory.\n\n"
	  "On an RAPIDS RMM log (.csv) the policies are RMM's by default: no-cache "
	  "(cuda_memory_resource), ideal, rmm-pool, rmm-arena, rmm-binning and cuda-async; "
	  "on any other trace the frameworks': caching, grow-only, preallocate, no-cache, "
	  "ideal.\n\n"
	  "Several settings of one policy go side by side: give --policy once for each.\n\n"
	  "Two traces (before and after a change, two batch sizes, two ranks) are "
	  "compared under one policy (caching unless --policy says): their numbers side by "
	  "side, then what grew by call stack, each trace at its OOM, else at its peak "
	  "reservation: every stack's live bytes before and after, the largest growth first "
	  "and the events that made them (a second pass over each).",
	  "gpumemsim compare traces/resnet50-train-b32.json --capacity=3.2GiB\n"
	  "# two PyTorch settings side by side:\n"
	  "gpumemsim compare traces/resnet50-train-b32.json --policy=caching \\\n"
	  "    --policy 'caching alloc_conf=expandable_segments:True'\n"
	  "# what grew between two runs of a job, by your own lines:\n"
	  "gpumemsim compare before.pickle after.pickle --frames='*/myproject/*'\n",
	  "== OUTPUT\n"
	  "--format=json prints {trace, capacity, peak_live, results, by, time_bound, winner, "
	  "why, incomplete}; each result has the keys of run --format=json (but incomplete, "
	  "said once) and label, driver_time_ms and steady_driver_time_ms; a policy that "
	  "could not run has {policy, error, label}, preallocate without a size {policy, "
	  "needs, label}.\n\n"
	  "--timeline writes a column pair (allocated, reserved) per policy beside the live "
	  "bytes, labelled by the policies' labels with other characters as '_'.\n\n"
	  "Two traces: --format=json prints {before, after, stacks}: each side {trace, "
	  "peak_reserved, peak_allocated, peak_live, fragmentation, device_allocs, oom_event, "
	  "moment, moment_event}; stacks {before, after, grew, shrank, stacks_grew, "
	  "stacks_shrank, stacks_unchanged}, each row {stack (innermost first), before, after, "
	  "change, count_before, count_after, events_of, first_event, last_event}. --folded "
	  "prints \"outer;...;inner BEFORE AFTER\" for every stack, the differential form "
	  "flamegraph.pl draws.\n",
	  .groups = G_TRACE | G_TARGET | G_POLICIES | G_OUTPUT | G_TIMELINE | G_PROGRESS,
	  .opts = compare_opts, .inputs = INPUTS_TRACE | INPUTS_PAIR | INPUTS_RANKS,
	  .min_args = 1, .max_args = 2, .by_framework = 1, .exec = cmd_compare },
	{ "check", "<trace> | --ranks <trace|dir>...",
	  "check a run against thresholds or a baseline, for CI (exit 1 if not)",
	  "Run a trace and check the result against thresholds, for CI: exit 0 when every "
	  "check holds, 1 when one fails. Give at least one threshold, --capacity, --gpu "
	  "or a baseline; under --capacity or --gpu the run must also fit. With several "
	  "--policy (two settings of caching, say), every check applies to each, named by "
	  "the policy's label.\n\n"
	  "Ratios are written 0.15 or 15%; a bare number above 1 is refused as ambiguous.\n\n"
	  "With --at VALUE TRACE for each of several recordings of one job and --value, the "
	  "job built at that value (as scale builds it) is checked: a gate on a batch size "
	  "nobody has run.",
	  "gpumemsim check trace.json --max-fragmentation=15% --baseline=base.json "
	  "--tolerance=2% --format=tap\n"
	  "gpumemsim check trace.json --must-fit=A10 --max-overhead=0.25\n"
	  "gpumemsim check --at 8 b8.pickle --at 16 b16.pickle --value 64 --must-fit=A100-80GB\n",
	  "== CHECKS\n"
	  "A baseline is a saved 'run --format=json' of the same trace and policy: peak "
	  "reserved, peak allocated, fragmentation, device allocations and retries may each "
	  "grow by --tolerance at most, and a baseline that fitted must still fit. --format=tap "
	  "prints one TAP test per check, with what an incomplete trace means as a comment.\n\n"
	  "A baseline saved with its stacks ('run --by-stack --format=json') also says, when a "
	  "check fails, what grew since, by call stack at each run's peak reservation (a "
	  "second pass over the trace): a table after the checks, diagnostics in TAP, "
	  "\"stacks_since_baseline\" in JSON (compare's rows).\n",
	  .groups = G_TRACE | G_TARGET | G_POLICIES | G_OUTPUT | G_PROGRESS | G_SCALED,
	  .opts = check_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS | INPUTS_SCALED, .needs_value = 1,
	  .min_args = 1, .max_args = 64, .by_framework = 1, .exec = cmd_check },
	{ "plan", "<trace> | --ranks <trace|dir>...", "the smallest capacity each policy needs, and which GPUs fit",
	  "For each policy, the smallest capacity at which the trace runs without running "
	  "out of memory, to 2 MiB (found by bisection, checked, and probed above: a "
	  "caching allocator can fail with more memory where it fits with less), and a "
	  "table of which GPU models it fits on, with the headroom or the failing event.\n\n"
	  "Given recordings of one job at several values of one size instead (--at VALUE "
	  "TRACE for each, as scale takes them): the largest value that fits each GPU, every "
	  "candidate built and replayed, or with --value the plan of the job built there.",
	  "gpumemsim plan traces/resnet50-train-b32.json --gpus=T4,A10,A100-40GB\n"
	  "gpumemsim plan --at 8 b8.pickle --at 16 b16.pickle --gpus=T4,L4,A100-80GB\n"
	  "# the ranks of a distributed job: the card every rank fits on\n"
	  "gpumemsim plan --ranks snapshots/ --gpus=L4,A100-40GB,H100-80GB\n",
	  "== OUTPUT\n"
	  "The smallest capacity is checked: it fits and 2 MiB less does not. A caching "
	  "allocator can fail with more memory where it fits with less (its retries free "
	  "different segments); such capacities above the smallest are listed in JSON as "
	  "fails_above_min. Each GPU's memory is what the driver reports "
	  "(cudaMemGetInfo's total), less --context-overhead; gpumemsim(1) lists the "
	  "models.\n\n"
	  "With --ranks, every rank's plan and the job's: for each policy the capacity every "
	  "rank needs (the neediest rank's smallest, and which rank that is), each rank's "
	  "smallest, and a GPU table whose cells say \"all fit\" with the least headroom of "
	  "any rank, or the rank that runs out first (by the share of its events: the ranks "
	  "of a job advance together) and its event. JSON: {schema, ranks_from, ranks: "
	  "[plan's object with rank and path], job: {policies: [{policy, min_capacity, "
	  "rank}], gpus: [{gpu, memory, policies: [{policy, fits, headroom | "
	  "first_oom_rank, oom_event}]}]}}.\n\n"
	  "With --placements=N each policy also gets the smallest capacity that fits under "
	  "every one of N placements (JSON: min_capacity_every_placement and "
	  "every_placement_verified): the largest of the placements' own minimums, "
	  "checked under each and raised by 2 MiB while one still fails. It costs about N "
	  "plans.\n\n"
	  "A policy that sizes a pool of its own (RMM's rmm-pool, rmm-arena, rmm-binning) "
	  "and was given no size also gets the smallest pool that runs the trace, to 256 B, "
	  "on a GPU without a limit (every size option set to it: initial and maximum, the "
	  "arena's size), checked as the capacity is (JSON: min_pool, pool_verified). On an "
	  "RMM log the policies are RMM's resources by default (no-cache, ideal, rmm-pool, "
	  "rmm-arena, rmm-binning, cuda-async).\n",
	  .groups = G_TRACE | G_POLICIES | G_OUTPUT | G_PROGRESS | G_SCALED,
	  .opts = plan_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS | INPUTS_SCALED,
	  .min_args = 1, .max_args = 64, .by_framework = 1, .exec = cmd_plan },
	{ "tune", "<trace> | --ranks <trace|dir>...", "find the PyTorch allocator setting that reserves least and fits",
	  "Search PyTorch's allocator settings (PYTORCH_CUDA_ALLOC_CONF: expandable "
	  "segments, max_split_size_mb, roundup_power2_divisions and, under a capacity, "
	  "garbage_collection_threshold) for the one that reserves least and fits, and say "
	  "what TensorFlow's and JAX's allocator modes (growth, preallocation, a memory "
	  "limit) would cost. The trace is read once and replayed on all cores. Exit 1 "
	  "when no setting fits. With --at VALUE TRACE for several recordings of one job and "
	  "--value, the job built at that value is tuned.\n\n"
	  "On an RAPIDS RMM log (.csv) it searches RMM's resources instead: the default "
	  "pool, a pool growing from nothing, the smallest pool and the smallest arena that "
	  "run the log (to 256 B), binning, cudaMallocAsync's pool (ranked by the top of "
	  "its measured range) and cudaMalloc itself (no pool, listed last), each as the "
	  "Python line that sets it. The defaults sized from the GPU's free memory need "
	  "--capacity or --gpu.",
	  "gpumemsim tune traces/resnet50-train-b32.json --capacity=3.3GiB\n"
	  "gpumemsim tune snapshot.pickle --gpu=L4\n"
	  "gpumemsim tune --at 8 b8.pickle --at 16 b16.pickle --value 32 --gpu=L4\n"
	  "gpumemsim tune traces/synth-rmm-streams.csv --gpu=A100-40GB\n",
	  "== SEARCH\n"
	  "Every single change from the default (expandable_segments:True, a grid of "
	  "max_split_size_mb, roundup_power2_divisions of 1 to 16, and under a capacity "
	  "garbage_collection_threshold), then coordinate descent from the best until "
	  "nothing improves. The runner-ups are listed, each setting that changes nothing "
	  "over a simpler one left out. For TensorFlow and JAX: what growth and "
	  "preallocation reserve, and the smallest memory limit under which they fit, as "
	  "memory_limit and XLA_PYTHON_CLIENT_MEM_FRACTION.\n\n"
	  "On an RMM log, --format=json prints {trace, capacity, peak_live, min_pool, "
	  "min_arena, cuda_async_range {low, high}, fits, rmm}; each of rmm (best first) "
	  "has {policy, setting, fits, peak_reserved, device_allocs, oom_event}, or error.\n",
	  .groups = G_TRACE | G_TARGET | G_OUTPUT | G_PROGRESS | G_SCALED,
	  .opts = tune_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS | INPUTS_SCALED, .needs_value = 1,
	  .min_args = 1, .max_args = 64, .by_framework = 1, .exec = cmd_tune },
	{ "plot", "-o <file.svg|file.png> <trace> | --ranks <trace|dir>...", "draw a run: a timeline per policy, a memory map, or the live memory by stack",
	  "Draw a run. By default: live bytes and each policy's allocated (dashed) and "
	  "reserved bytes over the trace's events, with the capacity, the trace's marks "
	  "and a red point where a policy ran out of memory. With --map: one policy's "
	  "segments (one row each) and their blocks, allocated in blue and cached free in "
	  "red, at its peak reservation, at its out-of-memory, or --at an event. With "
	  "--flame: the live memory there by the whole call stack that allocated it, an "
	  "icicle graph (SVG, drawn without gnuplot; --frames and --depth as run "
	  "--by-stack's).\n\n"
	  "The format follows the output's name: .svg or .png. Needs gnuplot. Without "
	  "--policy it draws caching; --map and --flame draw the first policy.",
	  "gpumemsim plot traces/resnet50-train-b32.json --policies=caching,grow-only "
	  "-o resnet.svg\n"
	  "gpumemsim plot traces/gpt2-train-varlen-bf16.jsonl.gz --map -o map.png\n"
	  "gpumemsim plot traces/gpt2-train-varlen-bf16.pickle --flame -o flame.svg\n",
	  "== TIMELINES\n"
	  "The numbers behind a timeline come from run --timeline=FILE.csv (compare "
	  "--timeline: a column pair per policy): event,t_us,live,allocated,reserved at "
	  "every change, or with --points=N an envelope of about N rows that keeps every "
	  "bucket's maxima, in memory proportional to N.\n",
	  .groups = G_TRACE | G_TARGET | G_POLICIES | G_PROGRESS,
	  .opts = plot_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS,
	  .min_args = 1, .max_args = 1, .own_output = 1, .by_framework = 1, .exec = cmd_plot },
	{ "report", "-o <report.html> <trace> [<after>] | --ranks <trace|dir>...",
	  "write up a trace (or two, compared) as one self-contained HTML page",
	  "Run every policy (or --policies) on a trace and write one self-contained HTML "
	  "page: a summary (the live peak, the capacity, whether the trace is whole), the "
	  "policy table with the winner, a timeline of each policy's reserved and allocated "
	  "bytes over the live bytes stacked by call site, each policy's OOM story, what "
	  "holds the memory at each policy's peak and OOM (live bytes by call site, block "
	  "rounding, reserved but not allocated; by call stack as icicle graphs when the "
	  "trace has stacks), each policy's segments over time, and memory maps of every "
	  "segment and block at those moments. --at=EVENT adds the state after that event "
	  "too: each policy's map, and what it did with the event's request (the free block "
	  "it took, or why none served it; a free kept in its cache or given back). Given "
	  "two traces (before and after a change), the page is the second's, with both "
	  "traces' peaks side by side and what grew by call stack under the first policy, as "
	  "compare says it.\n\n"
	  "The page fetches nothing: its CSS, script and pictures (SVG) are inside it. It "
	  "reads and prints without the script, which makes it an explorer: a block's "
	  "details and whole call stack on hover (a click keeps them), a band's largest "
	  "stacks on a click, the timeline's values under the pointer, zoom (drag) into finer "
	  "data (the page carries the timeline at three levels, each four times finer), an "
	  "axis in events or seconds, and a click on the timeline finding the state the page "
	  "carries nearest it; opened with #selftest the page checks itself. Its size is "
	  "bounded whatever the trace's length (about 3 MB): the timeline is an envelope that "
	  "keeps every peak, maps merge blocks too narrow to see, stacks and segments are "
	  "capped, tables fold their tails.",
	  "gpumemsim report traces/gpt2-train-varlen-bf16.jsonl.gz -o gpt2.html\n"
	  "# two policies in 3 GiB, where one of them runs out:\n"
	  "gpumemsim report traces/resnet50-train-b32.json --policies=caching,grow-only "
	  "--capacity=3GiB -o resnet.html\n"
	  "# the allocator's state after event 894, and two runs compared:\n"
	  "gpumemsim report oom-except.pickle.gz --at=894 -o oom.html\n"
	  "gpumemsim report before.pickle after.pickle -o diff.html\n",
	  NULL,
	  .groups = G_TRACE | G_TARGET | G_POLICIES | G_PROGRESS,
	  .opts = report_opts, .inputs = INPUTS_TRACE | INPUTS_PAIR | INPUTS_RANKS,
	  .min_args = 1, .max_args = 2, .own_output = 1, .by_framework = 1, .exec = cmd_report },
	{ "replay", "[<trace>]", "replay a trace on a real GPU beside the simulation (needs CUDA)",
	  "Replay a trace on a real GPU: the policy's own code, its segments from cudaMalloc "
	  "and cudaFree (expandable segments: the driver's virtual memory API). Reports the "
	  "simulation's prediction beside the replay (peak reserved, device calls, the OOM "
	  "event) and whether they agree; the device memory in use (cudaMemGetInfo) before, "
	  "at its peak and at the end; the time spent in cudaMalloc and cudaFree; and a "
	  "re-simulation given the addresses the GPU handed out, which must agree exactly.\n\n"
	  "With --job or --scenario instead of a trace, a share scenario: one process per "
	  "job, each with its own CUDA context and its policy over cudaMalloc and cudaFree, "
	  "taking turns in the scenario's order through a counter in shared memory, the GPU "
	  "brought down to the scenario's memory (--capacity or --gpu) by a ballast the "
	  "parent holds; each job's outcome (fits, out of memory at which event, could not "
	  "start) and peak reservation beside share's prediction. --touch, --device-log, "
	  "--no-cache-baseline and the policy options go with a trace; --gpu and "
	  "--context-overhead with a scenario; each is refused in the other.\n\n"
	  "Needs a build with --with-cuda (exit 2 otherwise) and an NVIDIA GPU and driver. "
	  "A built binary needs, on the GPU machine, the driver and libcjson.so.1 (or a "
	  "build with --enable-static-deps).",
	  "gpumemsim replay traces/resnet50-train-b32.json --policy=caching --touch\n"
	  "gpumemsim replay traces/resnet50-train-b32.json --no-cache-baseline\n"
	  "gpumemsim replay --scenario mix.json --capacity=24GiB --context-overhead=527MiB\n",
	  NULL,
	  .groups = G_TRACE | G_POLICY | G_OUTPUT | G_PROGRESS,
	  .opts = replay_opts, .inputs = INPUTS_TRACE | INPUTS_JOBS,
	  .min_args = 0, .max_args = 1, .by_framework = 1, .exec = cmd_replay },
	{ "share", "", "several jobs on one GPU: who runs out of memory, when, and safe limits",
	  "Run several jobs on one GPU: each job a trace replayed through its own allocator "
	  "policy, in its own process (its own CUDA context, its own address space), all "
	  "drawing on one card. Their events interleave by time. A reservation the card "
	  "cannot back is refused, as the driver refuses it, and each policy then does what "
	  "its framework does: PyTorch frees its cached segments and retries once, BFC backs "
	  "off its region size (TensorFlow also frees its empty regions), then the job is out "
	  "of memory. A job that runs out dies and its memory returns to the card; the others "
	  "go on. The report gives each job's peak reservation and whether, where and when "
	  "it ran out, with what every job held at that moment.\n\n"
	  "A job starts by taking its CUDA context (--context-overhead) from the card. "
	  "TensorFlow sizes its BFC limit from the memory free at that moment less its "
	  "reserve; JAX takes XLA_PYTHON_CLIENT_MEM_FRACTION (0.75) of the card's total. A "
	  "preallocating job takes its whole pool at its start: JAX about what is free when "
	  "its fraction is more (it backs off 10% at a time, as measured on an H200), a pool "
	  "of a given memory_limit (limit=) not free fails there. PyTorch has no limit unless "
	  "fraction= sets one (set_per_process_memory_fraction). A TensorFlow or JAX profile "
	  "given no policy= is the job it recorded: its mode, flavor and (JAX) fraction.\n\n"
	  "A job is written 'TRACE key=value ...': policy (caching, grow-only, preallocate, "
	  "no-cache; default caching) and its own settings (alloc_conf, flavor, gc), start "
	  "(30s, 1.5ms, 250us, or event:N: when the first job reaches its event N), repeat "
	  "(passes over the trace, or until-end: until the other jobs end; what a pass "
	  "leaves allocated is freed before the next, the cache kept), limit (BFC's "
	  "memory_limit), fraction (of the card: set_per_process_memory_fraction for "
	  "caching, XLA_PYTHON_CLIENT_MEM_FRACTION for BFC), name, duration (one pass, for "
	  "a trace without times, whose events are then spread evenly over it), cc "
	  "(TensorFlow's reserve), device (which GPU's allocator to read from a profile or "
	  "snapshot of several) and after (exit, the default: done, the process ends and "
	  "its memory returns to the card; hold: it stays alive holding what it reserved, "
	  "its cache or its pool, until the other jobs are done, as an idle notebook kernel "
	  "or a server between requests does). A TensorFlow or JAX profile's job is its "
	  "allocator as recorded unless it names a policy. Events keep the times the trace records, "
	  "from the job's start.",
	  "gpumemsim share --gpu=A10 --job 'a.json policy=grow-only' \\\n"
	  "    --job 'b.json policy=grow-only start=30s'\n"
	  "# the same two with TensorFlow's memory_limit, and the limits that would work:\n"
	  "gpumemsim share --gpu=A10 --job 'a.json policy=grow-only limit=8GB' \\\n"
	  "    --job 'b.json policy=grow-only limit=8GB start=30s' --recommend\n"
	  "gpumemsim share --scenario mix.json --offsets=100 --fail-on-oom --format=json\n"
	  "gpumemsim share --scenario mix.json --plot=mix.svg\n",
	  "== SCENARIO FILES\n"
	  "--scenario names a JSON object: {\"gpu\": \"A10\" or \"capacity\": \"24GB\", "
	  "\"context_overhead\": \"512MiB\", \"jobs\": [{\"trace\": \"a.json\", "
	  "\"policy\": \"grow-only\", \"start\": \"30s\", \"repeat\": 3, ...}, ...]}. "
	  "A job's keys are --job's; traces are found relative to the file. --gpu, "
	  "--capacity and --context-overhead on the command line win over the file, and "
	  "--job adds jobs after the file's.\n"
	  "== OUTPUT\n"
	  "--format=json prints {capacity, gpu, context_overhead, jobs, ooms, peak_used, "
	  "fits}; each job {name, trace, policy, start_us, repeat, limit, started, passes, "
	  "events, peak_reserved, end_us, oom, incomplete}, its oom null or {event, pass, "
	  "time_us, size, what, held, gpu_free}: event is the index in its trace (null when "
	  "the job could not start), what is alloc, context or pool, held is every job's "
	  "reservation then. ooms lists them in order, each with its job. --offsets adds "
	  "{samples, seed, within_us, with_oom, share, ooms_by_job, worst}; --recommend "
	  "{need, fits, jobs: [{name, needs, limit, setting}], gpus_that_fit}.\n"
	  "== EXIT STATUS\n"
	  "0, or 1 with --fail-on-oom when a job runs out of memory; 3 for a bad job or "
	  "scenario, named in the message.\n",
	  .groups = G_TRACE | G_OUTPUT | G_PROGRESS,
	  .opts = share_opts, .inputs = INPUTS_JOBS,
	  .min_args = 0, .max_args = 0, .exec = cmd_share },
	{ "scale", "<trace>...",
	  "the job at a batch size or length not recorded: its peak, the largest that fits",
	  "Build the trace of a run nobody made. Give recordings of one job at two or more "
	  "values of one size (batch, sequence length, image side), each after --at and "
	  "its value; scale aligns their events (the same op at the same site on the same "
	  "stream, in the same order), fits each allocation's size over the values in the "
	  "simplest form the recordings support (the same at every value; affine; from two "
	  "recordings c V^2 when that passes through both exactly, from three any "
	  "quadratic, or a line that stops at the largest recorded: capped), and builds the job at each --value after the recording nearest it: "
	  "its frees, times, streams and marks, every size from its fit. Each trace built "
	  "is replayed through the policy: the curve of peak reserved against the value.\n\n"
	  "With --capacity or --gpu, also the largest value that fits, searched over the "
	  "integers (each candidate replayed) up to " STR(SCALE_EXTRAPOLATION_MAX) " times the "
	  "largest recorded value, "
	  "and how the value above it runs out of memory.\n\n"
	  "It says how sure it is: allocations found in the recording followed but not in "
	  "the others (a workspace, a reduction's buffer that the framework adds above "
	  "some size) are taken in proportion to the value; sizes that no form passes "
	  "through, and values beyond the recordings, are named. Where the recordings "
	  "cannot decide the peak (those allocations, and reductions' staging buffers "
	  "grown past every recording, which stop at a size the GPU sets), the value's row "
	  "gives the range between the fit and the trace with them as recorded, and says "
	  "which recording would settle it. A recording that makes a site's allocations "
	  "another number of times took another path there: left out of that site's fits "
	  "while two others remain. Recordings that are not "
	  "one job (fewer than half the allocations align) are refused, saying where they "
	  "part.",
	  "gpumemsim scale --at 8 b8.pickle --at 16 b16.pickle --gpu=A10\n"
	  "gpumemsim scale --at 64 s64.pickle --at 128 s128.pickle --value 512 --value 1024\n"
	  "gpumemsim scale --at 8 b8.pickle --at 16 b16.pickle --gpu=L4 --plot=curve.svg\n"
	  "# the job at batch 48, to replay with every other command:\n"
	  "gpumemsim scale --at 8 b8.pickle --at 16 b16.pickle --value 48 -o b48.jsonl.gz\n",
	  "== OUTPUT\n"
	  "--format=json prints {recordings: [{trace, value}], policy, capacity, gpu, points, "
	  "largest_fitting}; each point {value, peak_reserved, peak_allocated, peak_live, "
	  "peak_reserved_range, oom, follows, beyond, sizes, unaligned_bytes, uncapped, "
	  "clamped}: peak_reserved_range null or [least, most] where the recordings leave "
	  "the peak open (curve points only), oom null or {event, size, "
	  "at} (event: its index in the recording followed, follows), beyond the value's "
	  "ratio to the nearest recorded value when outside them (else 0), sizes the "
	  "allocations by form (constant, affine, quadratic, capped, no form, unaligned), "
	  "uncapped the reductions left open. "
	  "largest_fitting (with a capacity) is {value (null: not even 1 fits), "
	  "searched_up_to, fit, next, fits_again_at, replays}: fit and next are points, "
	  "next the value above the largest that fits.\n"
	  "== EXIT STATUS\n"
	  "0; 3 for recordings that cannot be scaled (not one job, cut short, ended by an "
	  "out-of-memory error) or a value out of range, named in the message.\n",
	  .groups = G_TRACE | G_TARGET | G_POLICY | G_OUTPUT | G_PROGRESS,
	  .opts = scale_opts, .inputs = INPUTS_SCALED,
	  .min_args = 2, .max_args = 64, .own_output = 1, .by_framework = 1, .exec = cmd_scale },
	{ "info", "<trace> | --ranks <trace|dir>...", "describe a trace: counts, live peak, sizes, largest allocations",
	  "Describe a trace: events, allocations, frees, streams, duration, the live peak "
	  "and when, a power-of-two size histogram, the largest allocations and where they "
	  "were made, what holds the memory at the live peak (the live bytes by call "
	  "site), and what the recording allocator did.  With --ranks, the ranks of one "
	  "distributed job side by side: each rank's events, live peak and when, duration "
	  "and largest allocation, and the job's largest live peak and spread.",
	  "gpumemsim info traces/resnet50-train-b32.pickle\n"
	  "gpumemsim info --ranks snapshots/   # snap_rank0.pickle, snap_rank1.pickle, ...\n",
	  "== OUTPUT\n"
	  "--format=json prints the trace's {trace, format, events, allocs, frees, marks, "
	  "observed_events, empty_cache_calls, streams, time_backwards, duration_us, "
	  "requested_total, peak_live, peak_live_event, live_at_end, unknown_frees, "
	  "size_histogram, largest, observed, source, device, sites}.  With --ranks: "
	  "{schema, ranks_from, ranks: [each rank's object, sites aside, with rank and "
	  "path], job: {ranks, largest_rank, peak_live, least_rank, spread}}.\n",
	  .groups = G_TRACE | G_OUTPUT | G_PROGRESS,
	  .opts = info_opts, .inputs = INPUTS_TRACE | INPUTS_RANKS,
	  .min_args = 1, .max_args = 1, .exec = cmd_info },
	{ "convert", "<in> <out>",
	  "convert a trace (snapshot pickle, RMM log, ...) to the native format",
	  "Convert a trace to gpumemsim's native format. <in> is any trace gpumemsim reads: "
	  ".json, .jsonl, a PyTorch memory snapshot (.pickle) or profiler trace, a "
	  "TensorFlow or JAX profile (.xplane.pb), an RMM log (.csv), each "
	  "optionally gzip'd, or '-' for standard input. <out> is named .json (one "
	  "document), .jsonl (JSON Lines, for traces too long to hold in memory) or either "
	  "with .gz; '-' writes JSON Lines to standard output; -o <out> says the same. The "
	  "trace is checked on the way: a bad one leaves no output, and the output never "
	  "replaces the input.",
	  "gpumemsim convert snapshot.pickle trace.jsonl.gz\n"
	  "gpumemsim convert snapshot.pickle -o trace.jsonl.gz\n",
	  NULL,
	  .groups = G_TRACE | G_PROGRESS,
	  .opts = convert_opts, .inputs = INPUTS_TRACE,
	  .min_args = 1, .max_args = 2, .own_output = 1, .exec = cmd_convert },
	{ "oom", "<log>", "read an out-of-memory log: shortage or fragmentation, and the setting that serves it",
	  "Read what a job printed when it ran out of GPU memory, as users paste it: the "
	  "BFC allocator's dump from TensorFlow or JAX (\"Allocator (GPU_0_bfc) ran out of "
	  "memory trying to allocate ...\" and the chunk map that follows it; they print it "
	  "with TF_CPP_MIN_LOG_LEVEL=0), or PyTorch's OutOfMemoryError (the current message "
	  "or 1.x's) with or without torch.cuda.memory_summary(). Prefixes (glog's, "
	  "Python's, timestamps) may stay. It rebuilds the allocator's state at that moment "
	  "(BFC: every region and chunk, in use and free, from the chunk map; PyTorch: "
	  "allocated, reserved, cached but unallocated, the limit), says whether the memory "
	  "was there in the wrong shape (fragmentation: no free chunk, or no wholly free "
	  "segment, holds the request) or was not there (a shortage), what the job held and "
	  "asked for at that moment, and the framework's settings that would have served "
	  "the request. Only that moment is in a log: record the job to tune the whole run.",
	  "gpumemsim oom train.log\n"
	  "python train.py 2>&1 | tee run.log; gpumemsim oom run.log --format=json\n",
	  "== OUTPUT\n"
	  "--format=json prints {schema, log, line, allocator (bfc, pytorch-caching), "
	  "framework (jax, tensorflow, pytorch or null), device, request, request_exact, "
	  "state, verdict (fragmentation, shortage), needed, available, settings}: state is "
	  "BFC's {in_use, in_use_chunks, free, free_chunks, largest_free, pool, regions, "
	  "limit, mode, region_sizes} or PyTorch's {allocated, reserved, "
	  "reserved_unallocated, total_capacity, free_on_card, allowed, memory_summary, "
	  "segments}.\n"
	  "== EXIT STATUS\n"
	  "0; 3 when the file is no out-of-memory log gpumemsim reads, or a BFC log lacks "
	  "its dump (named, with the line).\n",
	  .groups = G_OUTPUT,
	  .opts = oom_opts, .inputs = INPUTS_OOMLOG,
	  .min_args = 1, .max_args = 1, .exec = cmd_oom },
	{ "policies", "", "list the policies, what they model and their options",
	  "List the allocator policies, the framework setting each stands for, and their "
	  "settings with defaults: write them after the policy's name in --policy "
	  "('grow-only flavor=jax') or with --option KEY=VALUE.",
	  "gpumemsim policies --format=json\n",
	  NULL,
	  .groups = G_OUTPUT,
	  .opts = policies_opts, .inputs = 0,
	  .min_args = 0, .max_args = 0, .exec = cmd_policies },
	{ NULL },
};

/* --- gpumemsim(1): what no single command owns ---------------------------- */

const char cli_manual_intro[] =
    "gpumemsim replays a recorded GPU memory trace (every allocation and free a "
    "training or inference job made) through faithful simulations of the frameworks' "
    "allocators: PyTorch's caching allocator with its PYTORCH_CUDA_ALLOC_CONF "
    "settings, the BFC allocator of TensorFlow and JAX growing or preallocated, RAPIDS "
    "RMM's memory resources (pool, arena, binning, fixed-size) and cudaMallocAsync's "
    "pool, no caching at all, and a perfect allocator as the bound. It reports how much the "
    "job reserves, how much of that is fragmentation, the exact event where a "
    "smaller GPU would run out of memory, which setting wins, and, with CUDA, "
    "whether a real GPU does the same.\n\n"
    "Every command reads one trace (convert: and writes one) and prints a report, as "
    "text for people or JSON for scripts (--format=json). Every JSON object starts with "
    "\"schema\": 1, the version of its keys (" DOC("JSON.md") " lists them, command by "
    "command), raised only when a key goes away or changes its meaning. Options may "
    "come before or after the trace; a unique prefix of a command's name is enough "
    "(gpumemsim comp).";

const char cli_manual_more[] =
    "== VALUES\n"
    "Sizes are a number with a unit: B (bytes), KiB, MiB, GiB, TiB (powers of 1024; "
    "K, M, G, T the same) or KB, MB, GB, TB (powers of 1000): 24GiB, 1.5GB, 512k, "
    "3150157824B. So 24G is 24 GiB (25769803776 bytes) and 24GB is 24 billion bytes "
    "(22.35 GiB), as GPU makers count. A number without a unit is refused, 0 aside "
    "(--capacity=24 could mean 24 GiB or 24 bytes), wherever a size is read: options, "
    "policy and job settings, scenario files.\n\n"
    "Ratios are written 0.2 or 20% alike. A bare number above 1 is refused as "
    "ambiguous (was 20 meant as 20% or as 2000%?); write 150% for more than the whole.\n\n"
    "A policy is its name, alone or followed by its settings as key=value words: "
    "--policy=caching, --policy 'caching alloc_conf=expandable_segments:True', "
    "--policy 'preallocate fraction=0.5'; caching's alloc_conf may go without its key, "
    "as tables name it: --policy 'caching expandable_segments:True'. The older form with colons, "
    "grow-only:flavor=jax, is read too (but cannot carry an alloc_conf, whose own "
    "syntax has colons). Commands that run several policies take --policy more than "
    "once, so two settings of one policy run side by side; each is labelled by its "
    "name and settings. --option KEY=VALUE gives a setting to every policy that has "
    "it, --option POLICY.KEY=VALUE to one; --alloc-conf is caching's alloc_conf.\n"
    "== TRACES\n"
    "Traces are read by extension or content: native JSON (.json, one document, or "
    ".jsonl, JSON Lines, streamed), PyTorch memory snapshots (.pickle, from "
    "torch.cuda.memory._dump_snapshot(), every generation from PyTorch 2.0 to 2.11), "
    "PyTorch profiler traces (.pt.trace.json with profile_memory=True), TensorFlow "
    "and JAX profiles (.xplane.pb, or the profile's log directory), RAPIDS RMM "
    "logs (.csv), each optionally gzip'd, from a file or standard input ('-'). "
    DOC("FORMAT.md") " is the native format's specification.\n\n"
    "A TensorFlow or JAX user records a trace with the profiler, which writes the BFC "
    "allocator's own record of every allocation (JAX: with jax.profiler.trace(\"/tmp/prof\"): "
    "train(); TensorFlow: tf.profiler.experimental.start(\"/tmp/prof\"), train(), "
    "tf.profiler.experimental.stop()) and gives gpumemsim the directory: the newest "
    "run's plugins/profile/RUN/HOST.xplane.pb is read, the GPU allocator's "
    "(GPU_N_bfc; --device=N where several GPUs allocated). Its limit is the run's "
    "(bytes_allocated + bytes_available), its mode the job's (one region: preallocate; "
    "several: grow-only; unknown when the profile began after the allocator's first "
    "allocation: preallocate, the frameworks' default), and every event's bytes in use "
    "is compared with the simulation's. An allocation that failed is not in a profile.\n\n"
    "An incomplete trace is read and said to be so in every report (a line STARTS "
    "MID-RUN, NO HISTORY, CUT SHORT or CUT SHORT BY ITS OUT OF MEMORY in text, the key "
    "incomplete in JSON, the title of a plot): a snapshot recorded with a bounded "
    "max_entries or after the job started is seeded from its segments at the dump, so "
    "its peaks are lower bounds; one with no history describes the moment of the dump; "
    "a profile of a window of the job seeds what was live before it; a snapshot dumped "
    "at its OOM ends with the request that failed (replayed, never freed); an RMM log "
    "cut off by a dying job is read to its last complete row. A job recorded without a "
    "GPU (python -m gpumemsim record) gets a line RECORDED WITHOUT A GPU (the key "
    "incomplete.recorded_without_gpu in JSON): the card it stood for, how far from "
    "PyTorch's own its peak reserved was measured to fall on real jobs with the same ops "
    "unmodelled (run prints that range beside its peak reserved, peak_reserved_range in "
    "JSON, under the caching policy) or that no range is stated, and what it assumed "
    "(generate()'s end-of-sequence test taken as not yet, so that each sequence runs to "
    "its max_new_tokens).\n\n"
    "A snapshot's own settings (allocator_settings, PyTorch 2.9 and later) are the "
    "caching policy's unless --alloc-conf or alloc_conf= says otherwise; a profiler "
    "trace's [memory] events are read in the profiler's order (ts, then Ev Idx), of one "
    "CUDA device.\n"
    "== BAD INPUT\n"
    "Whatever the input, gpumemsim does not crash, hang or answer wrongly in silence: "
    "a file it cannot read correctly is refused with exit 3 and a message naming the "
    "file and the line, event or byte. JSON is streamed, so memory follows what is "
    "live, not the file's size; a snapshot pickle streams too: its trace entries are "
    "kept as 40-byte records as they come (past 16 MiB in an unlinked temporary file "
    "in $TMPDIR), and what else it holds (segments, frames, stacks, its memo) is "
    "bounded by 16 bytes a byte read, or a third of ulimit -v. Strings from a trace "
    "are printed with control characters as '?'. An id, address or time of 2^53 or more "
    "is refused: a JSON number cannot hold it exactly, and a rounded id could be "
    "another allocation's.\n\n"
    "A pickle may name one list or dict from many places (its memo), so a few "
    "kilobytes can unfold to billions of values: what the snapshot reader walks below "
    "the top-level lists (device traces' entries, segments' blocks, frames and their "
    "strings) is counted, before expanding where a list's length tells it, against 16 "
    "steps per byte of the file (PyTorch's own snapshots take under 1), and a file past "
    "that is refused as a reference bomb. What PyTorch shares itself, one frames list "
    "for every entry with the same stack, is read once; an entry, or a list of "
    "device_traces, named a second time is refused (PyTorch names each once, and the "
    "reader lets each entry go once read). A trace entry, segment, block "
    "or frame with more than 64 keys, and a dict that sets one key twice (Python keeps "
    "the last value, so the two readings would differ), are refused; so is a JSON "
    "trace whose header names a key twice (two \"events\", \"format\" or "
    "\"version\").\n\n"
    "A pipe, a FIFO, standard input or a process substitution (<(zcat t.gz)) is read "
    "once into an unnamed temporary file, so that commands that read twice (info, run "
    "--by-site, report) and formats known only from their first bytes read it as a "
    "file; its first bytes must look like a trace (/dev/zero is refused at once), and "
    "more than 4 GiB is refused. A file that changes while a command reads it (its "
    "inode, size or modification time differ from when it was first opened, at any "
    "later open or the end of a read) is refused with exit 3, never mixed with what "
    "was read before. Times that go backwards are read as they are, with a warning "
    "from info, whose duration is from the earliest time to the latest; a profiler "
    "trace whose Total Allocated or Bytes contradict each other is replayed as "
    "recorded and said INCONSISTENT in every report. Within an event, a key given "
    "twice and a number with a leading zero (01) are refused.\n\n"
    "A directory stands for the traces in it: a profile's log directory for its newest "
    "run's HOST.xplane.pb (several hosts are refused, listed), --ranks DIR for its "
    "files named as traces (.pickle, .pkl, .json, .jsonl, .csv, .pb, each perhaps .gz), "
    "in name order. --ranks reads each rank once: a FIFO or a process substitution is "
    "a rank by its place on the command line (its contents are not opened twice to find "
    "its rank), standard input cannot be one, and one file given twice, as a rank or "
    "as scale's recording at two values (standard input too), is refused. Each rank's "
    "file is given back and its simulation freed as it ends, so a job of any number of "
    "ranks needs a few file descriptors and the memory of the runs going at once "
    "(-j).\n\n"
    "Inputs are never modified: an output (--output, --timeline, plot's picture, "
    "convert's trace) that names an input by any path, symlink or hard link is "
    "refused before anything is written (standard output too, when it is an input: "
    "convert t.jsonl - >> t.jsonl), and so is one inside an input directory under a "
    "name it would read as a trace (DIR/rank4.json, LOGDIR/plugins/profile/RUN/"
    "HOST.xplane.pb), now or the next time; every output is written beside its "
    "destination and renamed into place when complete, so a failure, a full disk or "
    "a signal (SIGINT, SIGTERM, SIGHUP: the temporary file is removed) leaves the old "
    "file, never half a new one. A picture is drawn in a private directory under "
    "TMPDIR and checked whole before it is written. A file replaced keeps its mode "
    "(and, where the process may, its owner); a symbolic link is followed, as the "
    "shell's > follows it: the file it names is replaced and the link stays (one that "
    "names nothing is refused); a file with other hard links gets a new inode, its "
    "other names keep the old contents. '-' is standard output for every option that "
    "writes a file.\n"
    "== PYTORCH ALLOCATOR SETTINGS\n"
    "The caching policy takes PYTORCH_CUDA_ALLOC_CONF's settings, in PyTorch's syntax and "
    "checked as PyTorch checks them (--alloc-conf, or alloc_conf= in --policy): "
    "expandable_segments:True (one growing virtual range per stream and pool, mapped in "
    "2 MiB or 20 MiB pages), max_split_size_mb:N (blocks of N MiB or more are never split), "
    "roundup_power2_divisions:D or [256:1,512:2,>:8] (requests rounded to D steps between "
    "powers of two), garbage_collection_threshold:T (under a capacity, old cached blocks "
    "freed before the pool passes T of it), large_segment_size_mb, "
    "max_non_split_rounding_mb, per_process_memory_fraction:F (a capacity of F of the "
    "device's memory) and graph_capture_record_stream_reuse (accepted; it acts only "
    "during CUDA graph capture). A value that does not fit what it feeds is refused, "
    "naming the setting, never truncated.\n"
    "== ENVIRONMENT\n"
    "gnuplot (on PATH) draws plots, run with -d: no start-up file ($HOME/.gnuplot, "
    "gnuplotrc) changes a picture. TMPDIR: where temporary files go. "
    "GPUMEMSIM_PROGRESS_DELAY: seconds before the "
    "progress line appears on a terminal (default 1; 0 at once); "
    "GPUMEMSIM_PROGRESS_EVERY: seconds between its redraws (default 0.2, at least "
    "0.01). GPUMEMSIM_STDIN_NAME: the name of a trace read from standard input "
    "(default: its header's, else '-'), as the Python package names a snapshot it "
    "pipes in. Nothing else is read "
    "from the environment; in particular PYTORCH_CUDA_ALLOC_CONF is not: give it as "
    "--alloc-conf.\n";

/* The table's lookups, for the parser, --help, the man pages and the completion. */

int
cli_in_group(const struct cli_command *c, enum cli_opt id)
{
	const enum cli_opt *o;
	int g;

	for (g = 0; g < CLI_NGROUPS; g++)
		if (c->groups & (1u << g))
			for (o = cli_group_opts[g]; *o != OPT_NONE; o++)
				if (*o == id)
					return 1;
	return 0;
}

int
cli_takes(const struct cli_command *c, enum cli_opt id)
{
	return id == OPT_HELP || cli_use_of(c, id) != NULL || cli_in_group(c, id);
}

const struct cli_use *
cli_use_of(const struct cli_command *c, enum cli_opt id)
{
	const struct cli_use *u;

	for (u = c->opts; u->id != OPT_NONE; u++)
		if (u->id == id)
			return u;
	return NULL;
}

const char *
cli_default_of(const struct cli_command *c, enum cli_opt id)
{
	const struct cli_use *u = cli_use_of(c, id);

	if (u != NULL && u->dflt != NULL)
		return u->dflt;
	return cli_optdefs[id].dflt;
}
