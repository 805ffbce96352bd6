/*
 * run.c - one simulation from a file to a result (run.h).
 */
#include "config.h"

#include <string.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/run.h"

int
run_simulate(const struct run_spec *spec, struct run_output *out, char **cause)
{
	const struct trace_header *hdr;
	struct device_recorded_stats rst;
	struct policy_args args;
	unsigned flags = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = trace_open(spec->path, &out->reader, cause)) < 0)
		return err;
	hdr = trace_header(out->reader);
	if (spec->unknown_frees_warn || hdr->starts_mid_run)
		flags |= SIM_UNKNOWN_FREES_WARN;
	if (spec->check_every)
		flags |= SIM_CHECK_EVERY;
#ifdef GMS_DEBUG
	flags |= SIM_CHECK_EVERY;	/* --enable-debug: every run checks itself */
#endif
	if (spec->placement == RUN_PLACEMENT_RECORDED) {
		out->dev = device_recorded_create(spec->capacity);
		flags |= SIM_FEED_RECORDED;
	} else {
		out->dev = device_sim_create(spec->capacity);
	}
	args = (struct policy_args){ .opts = spec->opts, .nopts = spec->nopts,
	    .capacity = spec->capacity, .device_total = hdr->device_total };
	out->sim = sim_create(spec->policy, &args, out->dev, flags, cause);
	if (out->sim == NULL)
		return GMS_ECONFIG;
	if ((err = sim_replay(out->sim, out->reader, cause)) < 0)
		return err;
	sim_result(out->sim, &out->res);
	if (spec->placement == RUN_PLACEMENT_RECORDED) {
		device_recorded_stats(out->dev, &rst);
		out->recorded_used = rst.used;
		out->recorded_diverged = rst.diverged;
		if (rst.pushed == 0 && out->res.device_allocs > 0)
			return gms_fail(cause, GMS_ETRACE, "%s: --placement=recorded needs the "
			    "trace's observed segment_alloc events, and it has none "
			    "(use --placement=model)", spec->path);
	}
	return 0;
}

void
run_output_free(struct run_output *out)
{
	sim_destroy(out->sim);
	device_destroy(out->dev);
	trace_close(out->reader);
	memset(out, 0, sizeof(*out));
}
