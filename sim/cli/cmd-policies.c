/*
 * cmd-policies.c - `gpumemsim policies`: each policy, the framework setting
 * it stands for, and its options with their defaults.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "sim/cli/cli.h"
#include "sim/policy.h"

int
cmd_policies(struct cli_args *a)
{
	const struct policy_ops *const *p;
	const struct policy_option *o;
	int json = a->v[OPT_FORMAT].choice == 1;
	cJSON *root, *list, *pol, *opts, *opt;

	if (json) {
		root = cJSON_CreateObject();
		list = cJSON_AddArrayToObject(root, "policies");
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
			cJSON_AddItemToArray(list, pol);
		}
		cli_print_json(a, root);
		return EXIT_DONE;
	}
	for (p = policy_table; *p != NULL; p++) {
		printf("%s\n    %s\n", (*p)->name, (*p)->models);
		for (o = (*p)->options; o->key != NULL; o++)
			printf("    --option %s=...  (default: %s)\n        %s\n", o->key,
			    *o->defval ? o->defval : "\"\"", o->help);
		if (p[1] != NULL)
			printf("\n");
	}
	return EXIT_DONE;
}
