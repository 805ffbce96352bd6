/*
 * placement.c - the placement model of placement.h.  Segments (above 1 MiB)
 * go where the CUDA driver puts them, by the rules measured on the H200
 * (placement-driver.c, doc/placement.md); address ranges for expandable
 * segments ascend from a region of their own: a frontier plus an
 * address-ordered red-black tree of released ranges ("holes") merged with
 * their neighbours and given back to the frontier when they touch it.
 *
 * It also models what the driver backs with physical memory, measured on an
 * H200 (replay/nocache_probe.py, t/data/nocache-h200.json): a request above
 * 1 MiB takes whole 2 MiB pages of its own; requests of up to 1 MiB are packed
 * into shared 2 MiB pages, first fit in 256-byte granules, and a page is given
 * back when it empties (200 allocations of 4 KiB use one page; of 64 KiB,
 * seven; of 1 MiB + 1, 2 MiB each).  The shared pages come from a region
 * like the address ranges' (a policy that reserves per request packs
 * thousands; addresses decide nothing for it, and the walk stops after
 * HOLE_SCAN holes so that it stays fast).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

/*
 * The shared pages' tree keeps, per subtree, the longest free range of any
 * page in it, so first fit by address is one descent, however many pages a
 * hundred thousand live requests keep.  The hole trees need nothing.
 */
struct page;
static void page_augment(struct page *p);
#define RB_AUGMENT(x) _Generic((x), struct page *: page_augment((struct page *)(x)), \
	default: (void)0)
#include <bsd/sys/tree.h>

#include "sim/gms.h"
#include "sim/placement-driver.h"
#include "sim/placement.h"

#define HOLE_SCAN 256
#define PAGE (2 * GMS_MiB)		/* the driver's physical page */
#define PACKED_MAX GMS_MiB		/* requests up to this share pages */
#define PACK_GRANULE 256

/*
 * The regions sit far from any address a real driver hands out, so model
 * addresses never collide with recorded ones (device-recorded.c mixes them).
 */
#define SMALL_BASE ((uint64_t)1 << 46)	/* shared pages ascend, up to SMALL_END */
#define SMALL_END  ((uint64_t)1 << 47)
#define VA_BASE    ((uint64_t)1 << 52)	/* address ranges ascend, up to VA_END */
#define VA_END     ((uint64_t)1 << 53)
/* Every model address stays below 2^53, so JSON numbers carry it exactly
   (the driver's segments sit below 2^51). */
_Static_assert(VA_END <= ((uint64_t)1 << 53), "addresses exact in JSON");

struct hole {
	uint64_t addr, size;
	RB_ENTRY(hole) link;
};

static int
hole_cmp(const struct hole *a, const struct hole *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(hole_tree, hole);
RB_PROTOTYPE(hole_tree, hole, link, hole_cmp)
RB_GENERATE(hole_tree, hole, link, hole_cmp)

struct region {
	struct hole_tree holes;
	uint64_t frontier;	/* the first unused byte */
	uint64_t bound;		/* the end */
};

/* A shared page: its free ranges, sorted by offset. */
struct page {
	uint64_t addr;
	struct range { uint64_t off, len; } *free;
	size_t nfree, cap;
	uint64_t longest;	/* the longest of free[] */
	uint64_t sub_longest;	/* ... of any page in this subtree */
	RB_ENTRY(page) link;
};

static int
page_cmp(const struct page *a, const struct page *b)
{
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

RB_HEAD(page_tree, page);
RB_PROTOTYPE(page_tree, page, link, page_cmp)
RB_GENERATE(page_tree, page, link, page_cmp)

static void
page_augment(struct page *p)
{
	struct page *l = RB_LEFT(p, link), *r = RB_RIGHT(p, link);

	p->sub_longest = p->longest;
	if (l != NULL && l->sub_longest > p->sub_longest)
		p->sub_longest = l->sub_longest;
	if (r != NULL && r->sub_longest > p->sub_longest)
		p->sub_longest = r->sub_longest;
}

/* p's free ranges changed (or p is new): its longest, and its ancestors'. */
static void
page_fix(struct page *p)
{
	size_t i;

	p->longest = 0;
	for (i = 0; i < p->nfree; i++)
		p->longest = GMS_MAX(p->longest, p->free[i].len);
	for (; p != NULL; p = RB_PARENT(p, link))
		page_augment(p);
}

/* The page of lowest address with a free range of at least g bytes. */
static struct page *
page_first_fit(struct page_tree *t, uint64_t g)
{
	struct page *n = RB_ROOT(t), *l;

	if (n == NULL || n->sub_longest < g)
		return NULL;
	for (;;) {
		l = RB_LEFT(n, link);
		if (l != NULL && l->sub_longest >= g)
			n = l;
		else if (n->longest >= g)
			return n;
		else
			n = RB_RIGHT(n, link);	/* it holds the fit: sub_longest said so */
	}
}

struct placement {
	struct region small, va;
	struct page_tree pages;
	uint64_t physical;	/* bytes of pages the driver backs */
	struct driver *drv;	/* it places segments */
};

struct placement *
placement_create(uint64_t seed)
{
	struct placement *pl = gms_calloc(1, sizeof(*pl));

	RB_INIT(&pl->small.holes);
	RB_INIT(&pl->pages);
	RB_INIT(&pl->va.holes);
	pl->small.frontier = SMALL_BASE;
	pl->small.bound = SMALL_END;
	pl->va.frontier = VA_BASE;
	pl->va.bound = VA_END;
	pl->drv = driver_create_perturbed(seed);
	return pl;
}

static void region_remove(struct region *rg, uint64_t addr, uint64_t size);

static int
region_place(struct region *rg, uint64_t size, uint64_t *out)
{
	struct hole *h, *fit = NULL;
	uint64_t addr;
	int scanned = 0;

	RB_FOREACH(h, hole_tree, &rg->holes)
		if (h->size >= size || ++scanned == HOLE_SCAN) {
			fit = h->size >= size ? h : NULL;
			break;
		}
	if (fit == NULL) {
		if (size > rg->bound - rg->frontier)
			return -1;
		*out = rg->frontier;
		rg->frontier += size;
		return 0;
	}
	addr = fit->addr;
	fit->addr += size;
	fit->size -= size;
	if (fit->size == 0) {
		RB_REMOVE(hole_tree, &rg->holes, fit);
		free(fit);
	}
	*out = addr;
	return 0;
}

static uint64_t
round_to(uint64_t n, uint64_t m)
{
	return (n + m - 1) / m * m;
}

/* A packed request: first fit over the pages in address order, else a new page. */
static int
place_packed(struct placement *pl, uint64_t size, uint64_t *addr)
{
	uint64_t g = round_to(size, PACK_GRANULE);
	struct page *p;
	size_t i;

	if ((p = page_first_fit(&pl->pages, g)) != NULL)
		for (i = 0; i < p->nfree; i++) {
			if (p->free[i].len < g)
				continue;
			*addr = p->addr + p->free[i].off;
			p->free[i].off += g;
			p->free[i].len -= g;
			if (p->free[i].len == 0) {
				memmove(&p->free[i], &p->free[i + 1],
				    (p->nfree - i - 1) * sizeof(p->free[0]));
				p->nfree--;
			}
			page_fix(p);
			return 0;
		}
	p = gms_calloc(1, sizeof(*p));
	if (region_place(&pl->small, PAGE, &p->addr) < 0) {
		free(p);
		return -1;
	}
	p->cap = 4;
	p->free = gms_malloc(p->cap * sizeof(p->free[0]));
	p->free[0] = (struct range){ .off = g, .len = PAGE - g };
	p->nfree = g < PAGE;
	RB_INSERT(page_tree, &pl->pages, p);
	page_fix(p);
	pl->physical += PAGE;
	*addr = p->addr;
	return 0;
}

static void
remove_packed(struct placement *pl, uint64_t addr, uint64_t size)
{
	struct page key = { .addr = addr + 1 }, *p;
	uint64_t off, g = round_to(size, PACK_GRANULE);
	size_t i;

	p = RB_NFIND(page_tree, &pl->pages, &key);
	p = p ? RB_PREV(page_tree, &pl->pages, p) : RB_MAX(page_tree, &pl->pages);
	GMS_ASSERT(p != NULL && addr >= p->addr && addr + g <= p->addr + PAGE);
	off = addr - p->addr;
	for (i = 0; i < p->nfree && p->free[i].off < off; i++)
		;
	if (p->nfree == p->cap)
		p->free = gms_realloc(p->free, (p->cap *= 2) * sizeof(p->free[0]));
	memmove(&p->free[i + 1], &p->free[i], (p->nfree - i) * sizeof(p->free[0]));
	p->free[i] = (struct range){ .off = off, .len = g };
	p->nfree++;
	if (i + 1 < p->nfree && p->free[i].off + p->free[i].len == p->free[i + 1].off) {
		p->free[i].len += p->free[i + 1].len;
		memmove(&p->free[i + 1], &p->free[i + 2], (p->nfree - i - 2) * sizeof(p->free[0]));
		p->nfree--;
	}
	if (i > 0 && p->free[i - 1].off + p->free[i - 1].len == p->free[i].off) {
		p->free[i - 1].len += p->free[i].len;
		memmove(&p->free[i], &p->free[i + 1], (p->nfree - i - 1) * sizeof(p->free[0]));
		p->nfree--;
	}
	if (p->nfree != 1 || p->free[0].len != PAGE) {
		page_fix(p);
	} else {
		struct page *up = RB_PARENT(p, link);

		RB_REMOVE(page_tree, &pl->pages, p);
		for (; up != NULL; up = RB_PARENT(up, link))
			page_augment(up);
		region_remove(&pl->small, p->addr, PAGE);
		pl->physical -= PAGE;
		free(p->free);
		free(p);
	}
}

int
placement_place(struct placement *pl, uint64_t size, uint64_t *addr)
{
	if (size <= PACKED_MAX)
		return place_packed(pl, size, addr);
	if (driver_place(pl->drv, size, addr) < 0)
		return -1;
	pl->physical += round_to(size, PAGE);
	return 0;
}

int
placement_reserve_va(struct placement *pl, uint64_t size, uint64_t *addr)
{
	return region_place(&pl->va, size, addr);
}

void
placement_release_va(struct placement *pl, uint64_t addr, uint64_t size)
{
	region_remove(&pl->va, addr, size);
}

void
placement_map(struct placement *pl, uint64_t size)
{
	pl->physical += round_to(size, PAGE);
}

void
placement_unmap(struct placement *pl, uint64_t size)
{
	pl->physical -= round_to(size, PAGE);
}

uint64_t
placement_physical(const struct placement *pl)
{
	return pl->physical;
}

static void
region_remove(struct region *rg, uint64_t addr, uint64_t size)
{
	struct hole *h, *prev, *next;

	h = gms_malloc(sizeof(*h));
	h->addr = addr;
	h->size = size;
	RB_INSERT(hole_tree, &rg->holes, h);
	prev = RB_PREV(hole_tree, &rg->holes, h);
	if (prev != NULL && prev->addr + prev->size == h->addr) {
		prev->size += h->size;
		RB_REMOVE(hole_tree, &rg->holes, h);
		free(h);
		h = prev;
	}
	next = RB_NEXT(hole_tree, &rg->holes, h);
	if (next != NULL && h->addr + h->size == next->addr) {
		h->size += next->size;
		RB_REMOVE(hole_tree, &rg->holes, next);
		free(next);
	}
	/* A hole at the frontier is just unused space again. */
	if (h->addr + h->size != rg->frontier)
		return;
	rg->frontier = h->addr;
	RB_REMOVE(hole_tree, &rg->holes, h);
	free(h);
}

void
placement_remove(struct placement *pl, uint64_t addr, uint64_t size)
{
	if (size <= PACKED_MAX) {
		remove_packed(pl, addr, size);
		return;
	}
	driver_remove(pl->drv, addr, size);
	pl->physical -= round_to(size, PAGE);
}

static void
region_clear(struct region *rg)
{
	struct hole *h, *next;

	for (h = RB_MIN(hole_tree, &rg->holes); h != NULL; h = next) {
		next = RB_NEXT(hole_tree, &rg->holes, h);
		RB_REMOVE(hole_tree, &rg->holes, h);
		free(h);
	}
}

void
placement_destroy(struct placement *pl)
{
	struct page *p, *next;

	if (pl == NULL)
		return;
	driver_destroy(pl->drv);
	for (p = RB_MIN(page_tree, &pl->pages); p != NULL; p = next) {
		next = RB_NEXT(page_tree, &pl->pages, p);
		RB_REMOVE(page_tree, &pl->pages, p);
		free(p->free);
		free(p);
	}
	region_clear(&pl->small);
	region_clear(&pl->va);
	free(pl);
}

int
placement_check(const struct placement *pl, char **cause)
{
	struct page *p, *want;
	uint64_t longest, sub, g;
	size_t i;

	RB_FOREACH(p, page_tree, (struct page_tree *)&pl->pages) {
		for (longest = 0, i = 0; i < p->nfree; i++)
			longest = GMS_MAX(longest, p->free[i].len);
		sub = longest;
		if (RB_LEFT(p, link) != NULL)
			sub = GMS_MAX(sub, RB_LEFT(p, link)->sub_longest);
		if (RB_RIGHT(p, link) != NULL)
			sub = GMS_MAX(sub, RB_RIGHT(p, link)->sub_longest);
		if (p->longest != longest || p->sub_longest != sub)
			return gms_fail(cause, GMS_EBUG, "page %#llx: longest free %llu (kept %llu), "
			    "in its subtree %llu (kept %llu)", (unsigned long long)p->addr,
			    (unsigned long long)longest, (unsigned long long)p->longest,
			    (unsigned long long)sub, (unsigned long long)p->sub_longest);
	}
	/* first fit by descent equals first fit by walking the pages in order */
	for (g = PACK_GRANULE; g <= PAGE; g *= 2) {
		want = NULL;
		RB_FOREACH(p, page_tree, (struct page_tree *)&pl->pages)
			if (p->longest >= g) {
				want = p;
				break;
			}
		if (page_first_fit((struct page_tree *)&pl->pages, g) != want)
			return gms_fail(cause, GMS_EBUG, "first fit of %llu bytes: not the "
			    "lowest page that fits", (unsigned long long)g);
	}
	return 0;
}
