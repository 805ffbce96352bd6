/*
 * policy.c - the table of policies, and finding one by name.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim/gms.h"
#include "sim/policy.h"

const struct policy_ops *const policy_table[] = {
	&policy_caching,
	NULL,
};

const struct policy_ops *
policy_find(const char *name, char **cause)
{
	const struct policy_ops *found = NULL;
	size_t i, n = strlen(name), matches = 0;
	char *list = NULL, *tmp;

	for (i = 0; policy_table[i] != NULL; i++) {
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
		if (n > 0 && strncmp(policy_table[i]->name, name, n) == 0) {
			found = policy_table[i];
			matches++;
		}
	}
	if (matches == 1)
		return found;
	for (i = 0; policy_table[i] != NULL; i++) {
		if (matches > 1 && strncmp(policy_table[i]->name, name, n) != 0)
			continue;
		tmp = gms_asprintf("%s%s%s", list ? list : "", list ? ", " : "",
		    policy_table[i]->name);
		free(list);
		list = tmp;
	}
	if (matches > 1)
		gms_fail(cause, GMS_ECONFIG, "ambiguous policy '%s', could be: %s", name, list);
	else
		gms_fail(cause, GMS_ECONFIG, "unknown policy '%s' (known: %s)", name, list);
	free(list);
	return NULL;
}
