/*
 * entry.c - main() of gpumemsim, alone in its file so that gendoc, which
 * writes the man pages and completion from the same table, links the rest.
 */
#include "config.h"

#include "sim/cli/cli.h"

int
main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
