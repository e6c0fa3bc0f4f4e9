/*
 * What the first touch of fresh memory costs on this machine (BENCHMARKS.md, "Fresh memory"):
 * maps N MiB, writes one byte a page and prints the time per 4 KiB page, then the time to write
 * the same memory again. With a second argument the mapping is MADV_HUGEPAGE.
 *
 *   cc -O2 scripts/bench/fresh-page-cost.c -o /tmp/fresh-page-cost && /tmp/fresh-page-cost 100
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1e3 + (now.tv_nsec - start->tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
    size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 100) << 20;
    int huge = argc > 2;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    char *memory = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (huge) {
        madvise(memory, bytes, MADV_HUGEPAGE);
    }
    for (size_t offset = 0; offset < bytes; offset += 4096) {
        memory[offset] = 1;
    }
    double first = since(&start);
    printf("%zu MiB%s: first touch %.1f ms, %.2f us per 4 KiB page\n", bytes >> 20, huge ? " (huge)" : "", first,
        first * 1000 / (double)(bytes / 4096));
    clock_gettime(CLOCK_MONOTONIC, &start);
    memset(memory, 2, bytes);
    printf("  written again: %.1f ms\n", since(&start));
    return 0;
}
