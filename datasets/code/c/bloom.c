/*
 * bloom.c - Bloom filter implementation for Lumen segment term dictionaries.
 *
 * Uses double hashing over a 64-bit FNV-1a hash: h_i(x) = h1(x) + i * h2(x).
 */
#include "bloom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

/* 64-bit FNV-1a over a byte string. */
static uint64_t fnv1a64(const char *key, size_t len)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* Second hash: a bit mix of the first, forced odd so it cycles all slots. */
static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h | 1;
}

/**
 * Initialises a filter sized for expected_items at the given false-positive rate.
 * Returns 0 on success, -1 on bad arguments or allocation failure.
 */
int bloom_init(bloom_filter *bf, size_t expected_items, double fp_rate)
{
    if (!bf || expected_items == 0 || fp_rate <= 0.0 || fp_rate >= 1.0)
        return -1;
    double m = -(double)expected_items * log(fp_rate) / (M_LN2 * M_LN2);
    bf->nbits = ((size_t)m + 63) & ~(size_t)63;
    bf->k = (unsigned)fmax(1.0, round(m / (double)expected_items * M_LN2));
    bf->bits = calloc(bf->nbits / 64, sizeof(uint64_t));
    bf->flags = BLOOM_NONE;
    return bf->bits ? 0 : -1;
}

void bloom_add(bloom_filter *bf, const char *key, size_t len)
{
    if (bf->flags & BLOOM_FROZEN)
        return;
    uint64_t h1 = fnv1a64(key, len), h2 = mix64(h1);
    for (unsigned i = 0; i < bf->k; i++) {
        size_t bit = (size_t)((h1 + i * h2) % bf->nbits);
        bf->bits[bit / 64] |= 1ULL << (bit % 64);
    }
}

/** Returns 1 if key may be in the set, 0 if it is definitely not. */
int bloom_may_contain(const bloom_filter *bf, const char *key, size_t len)
{
    uint64_t h1 = fnv1a64(key, len), h2 = mix64(h1);
    for (unsigned i = 0; i < bf->k; i++) {
        size_t bit = (size_t)((h1 + i * h2) % bf->nbits);
        if (!(bf->bits[bit / 64] & (1ULL << (bit % 64))))
            return 0;
    }
    return 1;
}

void bloom_free(bloom_filter *bf)
{
    free(bf->bits);
    memset(bf, 0, sizeof *bf);
}

#ifdef BLOOM_SELFTEST
#include <stdio.h>

static int test_no_false_negatives(void)
{
    bloom_filter bf;
    const char *words[] = {"index", "segment", "analyzer", "架构"};
    bloom_init(&bf, 100, 0.01);
    for (size_t i = 0; i < 4; i++)
        bloom_add(&bf, words[i], strlen(words[i]));
    for (size_t i = 0; i < 4; i++)
        if (!bloom_may_contain(&bf, words[i], strlen(words[i])))
            return 1;
    bloom_free(&bf);
    return 0;
}

int main(void)
{
    int failed = test_no_false_negatives();
    printf("bloom selftest: %s\n", failed ? "FAIL" : "ok");
    return failed;
}
#endif
