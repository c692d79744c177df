/*
 * bloom.h - Bloom filter used by Lumen segments to skip terms they do not contain.
 */
#ifndef LUMEN_BLOOM_H
#define LUMEN_BLOOM_H

#include <stddef.h>
#include <stdint.h>

/** Flags stored in the filter header. */
typedef enum bloom_flags {
    BLOOM_NONE = 0,
    BLOOM_FROZEN = 1 << 0, /**< no more inserts allowed */
} bloom_flags;

/** A fixed-size Bloom filter with k hash functions. */
typedef struct bloom_filter {
    uint64_t *bits;   /**< bit array, nbits rounded up to 64 */
    size_t nbits;
    unsigned k;       /**< number of hash functions */
    bloom_flags flags;
} bloom_filter;

int bloom_init(bloom_filter *bf, size_t expected_items, double fp_rate);
void bloom_add(bloom_filter *bf, const char *key, size_t len);
int bloom_may_contain(const bloom_filter *bf, const char *key, size_t len);
void bloom_free(bloom_filter *bf);

#endif /* LUMEN_BLOOM_H */
