/*
 * cmd-policies.c - `gpumemsim policies`: each policy, the framework setting
 * it stands for, and its options with their defaults.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "sim/cli.h"
#include "sim/policy.h"

static const char policies_usage[] = "gpumemsim policies [--format=text|json]";

int
cmd_policies(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct policy_ops *const *p;
	const struct policy_option *o;
	int json = 0, ch, rc;
	cJSON *root, *pol, *opts, *opt;
	char *text;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if ((rc = cli_choice("--format", optarg, cli_formats, &json)) != 0)
				return rc;
			break;
		case 'h':
			printf("usage: %s\n\nList the allocator policies, the framework setting each "
			    "stands for,\nand their options (give them with --option KEY=VALUE).\n",
			    policies_usage);
			return EXIT_DONE;
		default:
			return cli_bad_option("policies", policies_usage, ch, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("policies", policies_usage, "unexpected argument '%s'",
		    argv[optind]);
	if (json) {
		root = cJSON_CreateArray();
		for (p = policy_table; *p != NULL; p++) {
			pol = cJSON_CreateObject();
			cJSON_AddStringToObject(pol, "name", (*p)->name);
			cJSON_AddStringToObject(pol, "models", (*p)->models);
			opts = cJSON_AddArrayToObject(pol, "options");
			for (o = (*p)->options; o->key != NULL; o++) {
				opt = cJSON_CreateObject();
				cJSON_AddStringToObject(opt, "key", o->key);
				cJSON_AddStringToObject(opt, "default", o->defval);
				cJSON_AddStringToObject(opt, "help", o->help);
				cJSON_AddItemToArray(opts, opt);
			}
			cJSON_AddItemToArray(root, pol);
		}
		text = cJSON_Print(root);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(root);
		return EXIT_DONE;
	}
	for (p = policy_table; *p != NULL; p++) {
		printf("%s\n    %s\n", (*p)->name, (*p)->models);
		for (o = (*p)->options; o->key != NULL; o++)
			printf("    --option %s=...  (default: %s)\n        %s\n", o->key, o->defval,
			    o->help);
		if (p[1] != NULL)
			printf("\n");
	}
	return EXIT_DONE;
}
