/*
 * help.c - everything a person reads about the command line, written from
 * the table (table.c): `--help` for gpumemsim and each command, the man
 * pages gpumemsim(1) and gpumemsim-COMMAND(1), and the bash completion.
 * gendoc.c writes the last two at build time.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/gpus.h"
#include "sim/policy.h"

#define WIDTH 79
#define HELP_COL 29

/* Write text from column col, wrapped at WIDTH with later lines at indent. */
static void
wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text, *w;
	int len;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		for (w = p; *w != '\0' && *w != ' '; w++)
			;
		len = (int)(w - p);
		if (len == 0)
			break;
		if (col > indent && col + 1 + len > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)len, f);
		col += len;
		p = w;
	}
	fputc('\n', f);
}

/* Each blank-line separated paragraph of text, wrapped. */
static void
paragraphs(FILE *f, const char *text)
{
	char buf[4096];
	const char *p = text, *end;
	size_t n;

	while (*p != '\0') {
		end = strstr(p, "\n\n");
		n = end ? (size_t)(end - p) : strlen(p);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		wrap(f, buf, 0, 0);
		if (end == NULL)
			break;
		fputc('\n', f);
		p = end + 2;
	}
}

/* The option's help for the command, its "{}" the default the parser gives it. */
static const char *
help_of(const struct cli_command *c, enum cli_opt id, char *buf, size_t len)
{
	const struct cli_use *u = cli_use_of(c, id);
	const char *h = u != NULL && u->help != NULL ? u->help : cli_optdefs[id].help;
	const char *at = strstr(h, "{}"), *dflt = cli_default_of(c, id);

	if (at == NULL)
		return h;
	if (cli_optdefs[id].kind == K_THREADS)
		dflt = "the cores";
	snprintf(buf, len, "%.*s%s%s", (int)(at - h), h, dflt ? dflt : "?", at + 2);
	return buf;
}

/* "text|json" from the command's choices, for <arg>. */
static const char *
arg_of(const struct cli_command *c, enum cli_opt id, char *buf, size_t len)
{
	const struct cli_use *u = cli_use_of(c, id);
	size_t i, at = 0;

	if (u == NULL || u->choices == NULL)
		return cli_optdefs[id].arg;
	buf[0] = '\0';
	for (i = 0; u->choices[i] != NULL; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "|" : "", u->choices[i]);
	return buf;
}

static void
help_option(FILE *f, const struct cli_command *c, enum cli_opt id)
{
	const struct cli_optdef *d = &cli_optdefs[id];
	char head[128], args[64], help[2048];
	const char *arg = arg_of(c, id, args, sizeof(args));
	int n;

	n = snprintf(head, sizeof(head), "  %c%c%c --%s%s%s%s", d->letter ? '-' : ' ',
	    d->letter ? d->letter : ' ', d->letter ? ',' : ' ', d->name, arg ? " <" : "",
	    arg ? arg : "", arg ? ">" : "");
	fputs(head, f);
	if (n + 1 > HELP_COL - 1) {
		fprintf(f, "\n%*s", HELP_COL, "");
		n = HELP_COL;
	} else {
		fprintf(f, "%*s", HELP_COL - n, "");
		n = HELP_COL;
	}
	wrap(f, help_of(c, id, help, sizeof(help)), n, HELP_COL);
}

void
cli_help(FILE *f, const struct cli_command *c)
{
	const struct cli_use *u;
	const enum cli_opt *o;
	const char *p, *nl;
	int g, own = 0;

	fprintf(f, "usage: gpumemsim %s%s%s%s\n\n", c->name, " [options]", c->args[0] ? " " : "",
	    c->args);
	paragraphs(f, c->description);
	for (u = c->opts; u->id != OPT_NONE; u++)
		if (!cli_in_group(c, u->id)) {
			if (own++ == 0)
				fprintf(f, "\nOptions:\n");
			help_option(f, c, u->id);
		}
	for (g = 0; g < CLI_NGROUPS; g++) {
		if (!(c->groups & (1u << g)))
			continue;
		if ((c->groups & G_POLICIES) && (1u << g) == G_POLICY)
			continue;
		fprintf(f, "\n%s:\n", cli_group_names[g]);
		for (o = cli_group_opts[g]; *o != OPT_NONE; o++)
			help_option(f, c, *o);
	}
	fprintf(f, "\n");
	help_option(f, c, OPT_HELP);
	if (cli_takes(c, OPT_GPUS)) {
		const struct gpu_model *m;

		fprintf(f, "\nGPU models (--gpu, --gpus, --must-fit):\n");
		for (m = gpu_catalogue; m->name != NULL; m++)
			fprintf(f, "  %-10s %7.2f GiB  compute capability %d  %s\n", m->name,
			    (double)m->total / (double)GMS_GiB, m->cc, m->note);
	}
	if (c->groups & (G_POLICY | G_POLICIES)) {
		const struct policy_ops *const *pol;

		fprintf(f, "\nPolicies:\n");
		for (pol = policy_table; *pol != NULL; pol++) {
			fprintf(f, "  %-12s ", (*pol)->name);
			wrap(f, (*pol)->models, 15, 15);
		}
	}
	fprintf(f, "\nSizes need a unit: B, KiB, MiB, GiB, TiB (powers of 1024; 24G is 24 GiB)\n"
	    "or KB, MB, GB, TB (powers of 1000; 24GB is 22.35 GiB); ratios are 0.2 or 20%%.\n");
	fprintf(f, "\nExample%s:\n", strchr(c->examples, '\n') != strrchr(c->examples, '\n') ?
	    "s" : "");
	for (p = c->examples; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		fprintf(f, "  %.*s\n", (int)(nl - p), p);
	}
	fprintf(f, "\nThe manual: man gpumemsim-%s; exit status: man gpumemsim.\n", c->name);
}

void
cli_help_main(FILE *f)
{
	const struct cli_command *c;

	fprintf(f,
	    "usage: gpumemsim <command> [options] <trace>\n"
	    "       gpumemsim --version | --help\n\n"
	    "Replay a recorded GPU memory trace through simulated framework allocators\n"
	    "and report peak reservation, fragmentation and where memory runs out.\n\n"
	    "Commands:\n");
	for (c = cli_commands; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	/* the Python package's command, named where users look for commands */
	fprintf(f, "\nA PyTorch script's trace, made without a GPU (the Python package):\n"
	    "  python -m gpumemsim record --gpu=H100 -o job.jsonl.gz train.py [args]\n");
	fprintf(f, "\nExample:\n  gpumemsim run traces/resnet50-train-b32.json --policy=caching --capacity=3GiB\n\n"
	    "'gpumemsim <command> --help' describes a command and its options.\n"
	    "Exit status: 0 done, 1 a requested check failed, 2 usage, 3 bad trace or\n"
	    "options, 4 I/O or system error, 5 an internal error (a bug: please report it).\n");
}

/* --- man pages ----------------------------------------------------------- */

/* roff-escaped text: backslashes, dashes, and a leading dot or quote. */
static void
roff(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] != '\0'; i++) {
		if ((i == 0 || s[i - 1] == '\n') && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", f);
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

static void
roffs(FILE *f, const char *s)
{
	roff(f, s, strlen(s));
}

static void
man_paragraphs(FILE *f, const char *text)
{
	const char *p = text, *end;

	while (*p != '\0') {
		end = strstr(p, "\n\n");
		fputs(".PP\n", f);
		roff(f, p, end ? (size_t)(end - p) : strlen(p));
		fputc('\n', f);
		if (end == NULL)
			break;
		p = end + 2;
	}
}

static void
man_option(FILE *f, const struct cli_command *c, enum cli_opt id)
{
	const struct cli_optdef *d = &cli_optdefs[id];
	char args[64], help[2048];
	const char *arg = arg_of(c, id, args, sizeof(args));

	fputs(".TP\n", f);
	if (d->letter)
		fprintf(f, "\\fB\\-%c\\fR, ", d->letter);
	fputs("\\fB\\-\\-", f);
	roffs(f, d->name);
	fputs("\\fR", f);
	if (arg != NULL) {
		fputs(" \\fI", f);
		roffs(f, arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	roffs(f, help_of(c, id, help, sizeof(help)));
	fputc('\n', f);
}

/* "== TITLE\ntext" sections. */
static void
man_sections(FILE *f, const char *more)
{
	const char *p = more, *nl, *next;

	while (p != NULL && strncmp(p, "== ", 3) == 0) {
		nl = strchr(p, '\n');
		fprintf(f, ".SH %.*s\n", (int)(nl - p - 3), p + 3);
		next = strstr(nl + 1, "\n== ");
		{
			size_t n = next ? (size_t)(next - nl - 1) : strlen(nl + 1);
			char *body = gms_asprintf("%.*s", (int)n, nl + 1);

			while (n > 0 && body[n - 1] == '\n')
				body[--n] = '\0';
			man_paragraphs(f, body);
			free(body);
		}
		p = next ? next + 1 : NULL;
	}
}

static void
man_examples(FILE *f, const char *examples)
{
	const char *p, *nl;

	fputs(".SH EXAMPLES\n", f);
	for (p = examples; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (*p == '#') {
			fputs(".PP\n", f);
			roff(f, p + 2, (size_t)(nl - p - 2));
			fputc('\n', f);
			continue;
		}
		fputs(".PP\n.nf\n.RS 4\n", f);
		roff(f, p, (size_t)(nl - p));
		fputs("\n.RE\n.fi\n", f);
	}
}

static const char exit_status[] =
    "0 done; 1 a requested check failed (check, run --fail-on-oom, tune when nothing "
    "fits, replay --fail-on-mismatch); 2 usage, or a feature not built; 3 a bad trace "
    "or bad options; 4 an I/O or system error; 5 an internal error: a policy broke its "
    "own invariant, a bug in gpumemsim, never the input's fault. Errors go to standard "
    "error as 'gpumemsim: error: what failed: why', naming the file and the line or "
    "event when the input is at fault.";

void
cli_man(FILE *f, const struct cli_command *c, const char *date)
{
	const struct cli_use *u;
	const enum cli_opt *o;
	char upper[32];
	size_t i;
	int g;

	for (i = 0; c->name[i] != '\0' && i < sizeof(upper) - 1; i++)
		upper[i] = (char)(c->name[i] >= 'a' && c->name[i] <= 'z' ? c->name[i] - 32 :
		    c->name[i]);
	upper[i] = '\0';
	fprintf(f, ".\\\" generated from sim/cli/table.c by gendoc; do not edit\n");
	fprintf(f, ".TH GPUMEMSIM\\-%s 1 \"%s\" \"gpumemsim %s\" \"gpumemsim manual\"\n", upper,
	    date, PACKAGE_VERSION);
	fprintf(f, ".SH NAME\ngpumemsim\\-%s \\- ", c->name);
	roffs(f, c->summary);
	fprintf(f, "\n.SH SYNOPSIS\n.B gpumemsim %s\n[\\fIoptions\\fR]", c->name);
	if (c->args[0])
		fprintf(f, " \\fI%s\\fR", c->args);
	fputs("\n.SH DESCRIPTION\n", f);
	man_paragraphs(f, c->description);
	fputs(".SH OPTIONS\n", f);
	for (u = c->opts; u->id != OPT_NONE; u++)
		if (!cli_in_group(c, u->id))
			man_option(f, c, u->id);
	man_option(f, c, OPT_HELP);
	for (g = 0; g < CLI_NGROUPS; g++) {
		if (!(c->groups & (1u << g)) || ((c->groups & G_POLICIES) && (1u << g) == G_POLICY))
			continue;
		fprintf(f, ".SS %s\n", cli_group_names[g]);
		for (o = cli_group_opts[g]; *o != OPT_NONE; o++)
			man_option(f, c, *o);
	}
	if (c->more != NULL)
		man_sections(f, c->more);
	man_examples(f, c->examples);
	fputs(".SH EXIT STATUS\n", f);
	roffs(f, exit_status);
	fputs("\n.SH SEE ALSO\n.BR gpumemsim (1)", f);
	for (const struct cli_command *k = cli_commands; k->name != NULL; k++)
		if (k != c)
			fprintf(f, ",\n.BR gpumemsim\\-%s (1)", k->name);
	fputc('\n', f);
}

void
cli_man_main(FILE *f, const char *date)
{
	const struct cli_command *c;
	const struct policy_ops *const *p;
	const struct policy_option *po;
	const struct gpu_model *g;
	int i;

	fprintf(f, ".\\\" generated from sim/cli/table.c by gendoc; do not edit\n");
	fprintf(f, ".TH GPUMEMSIM 1 \"%s\" \"gpumemsim %s\" \"gpumemsim manual\"\n", date,
	    PACKAGE_VERSION);
	fputs(".SH NAME\ngpumemsim \\- replay GPU memory traces through simulated framework "
	    "allocators\n.SH SYNOPSIS\n.B gpumemsim\n\\fIcommand\\fR [\\fIoptions\\fR] "
	    "\\fItrace\\fR\n.br\n.B gpumemsim\n\\-\\-version | \\-\\-help\n", f);
	fputs(".SH DESCRIPTION\n", f);
	man_paragraphs(f, cli_manual_intro);
	fputs(".SH COMMANDS\n", f);
	for (c = cli_commands; c->name != NULL; c++) {
		fprintf(f, ".TP\n.BR gpumemsim\\-%s (1)\n", c->name);
		roffs(f, c->summary);
		fputc('\n', f);
	}
	fputs(".SH COMMON OPTIONS\nThe commands share these groups of options; each command's "
	    "page says which it takes. A letter or a long option means the same in every "
	    "command.\n", f);
	for (i = 0; i < CLI_NGROUPS; i++) {
		const enum cli_opt *o;
		/* a command that takes the group, for its help text */
		for (c = cli_commands; c->name != NULL && !(c->groups & (1u << i)); c++)
			;
		if (c->name == NULL || (1u << i) == G_POLICY)
			continue;
		fprintf(f, ".SS %s\n", cli_group_names[i]);
		for (o = cli_group_opts[i]; *o != OPT_NONE; o++)
			man_option(f, &(struct cli_command){ .opts = (const struct cli_use[]){
			    { OPT_NONE } } }, *o);
	}
	man_sections(f, cli_manual_more);
	fputs(".SH POLICIES\n", f);
	for (p = policy_table; *p != NULL; p++) {
		fprintf(f, ".TP\n.B %s\n", (*p)->name);
		roffs(f, (*p)->models);
		fputc('\n', f);
		for (po = (*p)->options; po->key != NULL; po++) {
			fputs(".RS\n.TP\n\\fI", f);
			roffs(f, po->key);
			fputs("\\fR (default: ", f);
			roffs(f, *po->defval ? po->defval : "\"\"");
			fputs(")\n", f);
			roffs(f, po->help);
			fputs("\n.RE\n", f);
		}
	}
	fputs(".SH GPU MODELS\nFor \\-\\-gpu, \\-\\-gpus and \\-\\-must\\-fit (names are "
	    "matched without case):\n.PP\n.nf\n", f);
	for (g = gpu_catalogue; g->name != NULL; g++) {
		fprintf(f, "%-10s %7.2f GiB  compute capability %d  ", g->name,
		    (double)g->total / (double)GMS_GiB, g->cc);
		roffs(f, g->note);
		fputc('\n', f);
	}
	fputs(".fi\n.SH EXIT STATUS\n", f);
	roffs(f, exit_status);
	fputs("\n.SH SEE ALSO\n", f);
	for (c = cli_commands; c->name != NULL; c++)
		fprintf(f, ".BR gpumemsim\\-%s (1)%s\n", c->name, c[1].name ? "," : "");
}

/* --- bash completion ------------------------------------------------------ */

static void
words_of_choices(FILE *f, const char *const *ch)
{
	int i;

	for (i = 0; ch[i] != NULL; i++)
		fprintf(f, "%s%s", i ? " " : "", ch[i]);
}

void
cli_completion_bash(FILE *f)
{
	const struct cli_command *c;
	const struct policy_ops *const *p;
	const struct gpu_model *g;
	int id;

	fputs("# bash completion for gpumemsim, generated from sim/cli/table.c by gendoc\n"
	    "# (installed in $(datadir)/bash-completion/completions; do not edit)\n\n"
	    "_gpumemsim_values() {\n"
	    "\t# the words an option's value can be, for command $1 and option $2\n"
	    "\tcase \"$1:$2\" in\n", f);
	for (c = cli_commands; c->name != NULL; c++)
		for (id = 1; id < OPT__N; id++) {
			const struct cli_use *u = cli_use_of(c, id);

			if (cli_optdefs[id].kind != K_CHOICE || !cli_takes(c, id))
				continue;
			fprintf(f, "\t%s:--%s", c->name, cli_optdefs[id].name);
			if (cli_optdefs[id].letter)
				fprintf(f, "|%s:-%c", c->name, cli_optdefs[id].letter);
			fputs(") echo '", f);
			words_of_choices(f, u && u->choices ? u->choices : cli_optdefs[id].choices);
			fputs("' ;;\n", f);
		}
	fputs("\t*:--policy|*:-p) echo '", f);
	for (p = policy_table; *p != NULL; p++)
		fprintf(f, "%s%s", p == policy_table ? "" : " ", (*p)->name);
	fputs("' ;;\n\t*:--policies) echo 'all", f);
	for (p = policy_table; *p != NULL; p++)
		fprintf(f, " %s", (*p)->name);
	fputs("' ;;\n\t*:--gpu|*:-g|*:--gpus|*:--must-fit) echo '", f);
	for (g = gpu_catalogue; g->name != NULL; g++)
		fprintf(f, "%s%s", g == gpu_catalogue ? "" : " ", g->name);
	fputs("' ;;\n\t*:--alloc-conf) echo 'expandable_segments:True max_split_size_mb: "
	    "roundup_power2_divisions: garbage_collection_threshold:' ;;\n"
	    "\t*) return 1 ;;\n\tesac\n}\n\n"
	    "_gpumemsim_options() {\n\tcase \"$1\" in\n", f);
	for (c = cli_commands; c->name != NULL; c++) {
		int first = 1;

		fprintf(f, "\t%s) echo '", c->name);
		for (id = 1; id < OPT__N; id++) {
			if (!cli_takes(c, id))
				continue;
			fprintf(f, "%s--%s%s", first ? "" : " ", cli_optdefs[id].name,
			    cli_optdefs[id].arg ? "=" : "");
			first = 0;
		}
		fputs("' ;;\n", f);
	}
	fputs("\tesac\n}\n\n"
	    "_gpumemsim() {\n"
	    "\tlocal cur prev cmd words opt i\n"
	    "\tCOMPREPLY=()\n"
	    "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	    "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	    "\t# words, not files: no quoting of '=', no '/' after a directory's name\n"
	    "\tcompopt +o filenames 2>/dev/null\n"
	    "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W '", f);
	for (c = cli_commands; c->name != NULL; c++)
		fprintf(f, "%s ", c->name);
	fputs("--help --version' -- \"$cur\"))\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\tcmd=${COMP_WORDS[1]}\n"
	    "\t# --opt=value: bash splits at '=' (COMP_WORDBREAKS) or not\n"
	    "\tif [ \"$cur\" = = ]; then\n"
	    "\t\topt=$prev; cur=\n"
	    "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 3 ]; then\n"
	    "\t\topt=${COMP_WORDS[COMP_CWORD-2]}\n"
	    "\telif [[ $cur == --*=* ]]; then\n"
	    "\t\topt=${cur%%=*}; cur=${cur#*=}\n"
	    "\telse\n"
	    "\t\topt=$prev\n"
	    "\tfi\n"
	    "\tif words=$(_gpumemsim_values \"$cmd\" \"$opt\"); then\n"
	    "\t\tcase $opt:$cur in\n"
	    "\t\t--gpus:*,*|--policies:*,*|--must-fit:*,*)\n"
	    "\t\t\t# a list: the word after its last comma\n"
	    "\t\t\tCOMPREPLY=($(compgen -P \"${cur%,*},\" -W \"$words\" -- \"${cur##*,}\")) ;;\n"
	    "\t\t*) COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")) ;;\n"
	    "\t\tesac\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\tcompopt -o filenames 2>/dev/null\n"
	    "\tcase $opt in\n"
	    "\t--output|-o|--timeline|--baseline|--scenario|--job|--plot)\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n"
	    "\tesac\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tcompopt +o filenames 2>/dev/null\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$(_gpumemsim_options \"$cmd\") --help\" -- \"$cur\"))\n"
	    "\t\t[ ${#COMPREPLY[@]} -eq 1 ] && [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	    "}\n"
	    "complete -o filenames -F _gpumemsim gpumemsim\n", f);
}
