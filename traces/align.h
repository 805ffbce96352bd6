/*
 * align.h - the longest common subsequence of two token sequences (Myers'
 * O(ND) difference algorithm, in linear space): which element of b each
 * element of a is the same event as.  scale aligns two recordings of one job
 * with it, each event a token (its op, its site, its stream).
 */
#ifndef TRACES_ALIGN_H
#define TRACES_ALIGN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Align a[0..na) with b[0..nb): a_to_b[i] gets the index in b matched to
 * a[i], or -1.  max_d bounds the work: more than max_d insertions and
 * deletions in all and the sequences are taken as too different.  Returns
 * the number of edits (deletions plus insertions), or -1 when that is over
 * max_d (a_to_b is then partial).  na and nb below 2^31.
 */
long align_tokens(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, size_t max_d,
    int32_t *a_to_b);

#endif /* TRACES_ALIGN_H */
