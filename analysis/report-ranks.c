/*
 * report-ranks.c - the report's ranks section (report-page.h), for `report
 * --ranks`: every rank of the job in a row (its peaks, fits or where it ran
 * out) and the job's answer; the page itself is the worst rank's, compared
 * with the least's (the diff section).
 */
#include "config.h"

#include "analysis/ranks.h"
#include "analysis/report-page.h"
#include "sim/gms.h"

#define SZ(n) gms_fmt_size((n), (char[32]){ 0 }, 32)

void
page_ranks(FILE *f, const struct html_report *r)
{
	const struct ranks_job *job = r->ranks;
	const struct rank_set *set;
	const struct sim_result *w;
	size_t i;

	if (job == NULL)
		return;
	set = job->set;
	w = &job->jobs[job->worst].out.res;
	fprintf(f, "<section id=\"ranks\"><h2>The ranks of the job</h2>\n<p>%zu ranks, each on "
	    "a GPU of its own, under %s", set->n, job->jobs[0].spec.policy->name);
	if (job->capacity)
		fprintf(f, " with %s a rank", SZ(job->capacity));
	if (job->ooms > 0)
		fprintf(f, ": %zu run%s out of memory, the first rank %d at event %llu of %llu "
		    "(the ranks of a job advance together: the share of each one's events is their "
		    "clock).", job->ooms, job->ooms == 1 ? "s" : "", set->f[job->worst].rank,
		    (unsigned long long)w->oom.event, (unsigned long long)w->events);
	else
		fprintf(f, ": the worst is rank %d, %s reserved at its peak, %s more than the "
		    "least, rank %d.", set->f[job->worst].rank, SZ(w->peak_reserved),
		    SZ(w->peak_reserved - job->jobs[job->least].out.res.peak_reserved),
		    set->f[job->least].rank);
	fputs(" This page is the worst rank's; below, it is compared with the least's.</p>\n"
	    "<table>\n<tr><th class=\"l\">rank</th><th>peak reserved</th><th>peak allocated</th>"
	    "<th>device calls</th><th>result</th><th class=\"l\">recording</th></tr>\n", f);
	for (i = 0; i < set->n; i++) {
		const struct sim_result *res = &job->jobs[i].out.res;

		fprintf(f, "<tr%s><td class=\"l\">rank %d</td><td>%s</td><td>%s</td><td>%llu</td>",
		    i == job->worst ? " class=\"worst\"" : "", set->f[i].rank,
		    SZ(res->peak_reserved), SZ(res->peak_allocated),
		    (unsigned long long)(res->device_allocs + res->device_frees));
		if (res->oomed)
			fprintf(f, "<td>OOM at event %llu</td>", (unsigned long long)res->oom.event);
		else
			fputs("<td>fits</td>", f);
		fputs("<td class=\"l\"><code>", f);
		page_esc(f, set->f[i].path);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}
