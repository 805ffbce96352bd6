/*
 * drivercost.c - the driver's prices.  Each row is a size the probe measured
 * (replay/results-h200/drivercost.txt: the median of 400 calls); between
 * rows the cost follows a straight line in (about) log2(size), beyond them
 * the nearest row.  Requests below 1 MiB share the driver's
 * 2 MiB pages (placement.c), so most cost the 512-byte row's lookup, and one
 * that opens or closes a page that page's 2 MiB price: the probe's 512 KiB
 * calls show both, 1.7 us at the median and 43 us at the 90th percentile.
 */
#include "config.h"


#include "sim/drivercost.h"
#include "sim/gms.h"

struct price {
	uint64_t size;
	double malloc_us, free_us;
};

static const struct price prices[] = {
	{ 512, 1.7, 1.8 },
	{ 4096, 1.7, 1.8 },
	{ 65536, 1.6, 1.8 },
	{ 524288, 1.7, 1.9 },
	{ 1 << 20, 30.9, 27.3 },
	{ 2 << 20, 43.5, 37.2 },
	{ 4 << 20, 43.5, 39.1 },
	{ 20 << 20, 49.2, 55.6 },
	{ 64 << 20, 53.9, 86.7 },
	{ 256 << 20, 72.3, 173.4 },
	{ (uint64_t)1 << 30, 170.5, 560.5 },
	/*
	 * Above 1 GiB the probe's repeated calls of one size cost 15 to 300 ms
	 * (4 to 64 GiB), but a first reservation in a process, which is what a
	 * pool or a region is, costs far less: preallocate's whole 138 GiB took
	 * 6 ms in one cudaMalloc (replay/RESULTS.md).  That is the row used.
	 */
	{ 148222443520ULL, 6000.0, 39382.6 },
};

#define MAP_US 53.1		/* cuMemCreate + cuMemMap + cuMemSetAccess, 2 MiB */
#define UNMAP_US 30.0		/* cuMemUnmap + cuMemRelease, 2 MiB */

/*
 * log2 by its exponent and the mantissa taken as linear: within 0.09 of the
 * real one, exact at powers of two, no libm call (this runs on every device
 * call of every replay).
 */
static double
log2ish(uint64_t n)
{
	int e = 63 - __builtin_clzll(n);

	return (double)e + (double)(n - ((uint64_t)1 << e)) / (double)((uint64_t)1 << e);
}

static uint64_t
price(uint64_t size, int is_free)
{
	size_t i, n = ARRAY_SIZE(prices);
	double lo, hi, t, us;

	if (size <= prices[0].size)
		us = is_free ? prices[0].free_us : prices[0].malloc_us;
	else if (size >= prices[n - 1].size)
		us = is_free ? prices[n - 1].free_us : prices[n - 1].malloc_us;
	else {
		for (i = 1; prices[i].size < size; i++)
			;
		lo = is_free ? prices[i - 1].free_us : prices[i - 1].malloc_us;
		hi = is_free ? prices[i].free_us : prices[i].malloc_us;
		t = (log2ish(size) - log2ish(prices[i - 1].size)) /
		    (log2ish(prices[i].size) - log2ish(prices[i - 1].size));
		us = lo + t * (hi - lo);
	}
	return (uint64_t)(us * 1000.0 + 0.5);
}

#define SHARED_PAGE_BELOW (1 << 20)	/* requests below share 2 MiB pages */

/* A small request: the lookup, plus each 2 MiB page it opened or closed. */
static uint64_t
shared(uint64_t pages, int is_free)
{
	return price(512, is_free) + ((pages + (2 << 20) - 1) >> 21) * price(2 << 20, is_free);
}

uint64_t
drivercost_malloc_ns(uint64_t size, uint64_t pages)
{
	return size < SHARED_PAGE_BELOW ? shared(pages, 0) : price(size, 0);
}

uint64_t
drivercost_free_ns(uint64_t size, uint64_t pages)
{
	return size < SHARED_PAGE_BELOW ? shared(pages, 1) : price(size, 1);
}

uint64_t
drivercost_map_ns(uint64_t size)
{
	return ((size + (2 << 20) - 1) >> 21) * (uint64_t)(MAP_US * 1000.0);
}

uint64_t
drivercost_unmap_ns(uint64_t size)
{
	return ((size + (2 << 20) - 1) >> 21) * (uint64_t)(UNMAP_US * 1000.0);
}
