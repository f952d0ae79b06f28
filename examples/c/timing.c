/*
 * timing MODEL [RUNS] [report]: time the C API in-process, as examples/timing.rs
 * times the Rust facade: each run loads MODEL (symdim_model_load) and infers it
 * (symdim_infer), and with `report` also makes the JSON report
 * (symdim_shapes_report). Prints one line per run, the seconds those calls took.
 * scripts/bench_capi.py runs both programs in turn and prints the ratio.
 *
 * Build:
 *   cargo build --release -p symdim-capi
 *   cc -O2 -Iinclude examples/c/timing.c -Ltarget/release -lsymdim -o timing
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symdim.h"

static int fail(void) {
    const char *why = symdim_last_error();
    fprintf(stderr, "symdim: %s\n", why ? why : "unknown error");
    return 2;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "report") != 0)) {
        fprintf(stderr, "usage: timing MODEL [RUNS] [report]\n");
        return 2;
    }
    int runs = argc >= 3 ? atoi(argv[2]) : 1;
    int report = argc == 4;
    size_t bytes = 0;
    for (int i = 0; i < runs; ++i) {
        double start = now();
        SymdimModel *model = NULL;
        if (symdim_model_load(argv[1], &model) != SYMDIM_OK) {
            return fail();
        }
        SymdimShapes *shapes = NULL;
        if (symdim_infer(model, NULL, &shapes) != SYMDIM_OK) {
            return fail();
        }
        char *json = NULL;
        size_t len = 0;
        if (report && symdim_shapes_report(shapes, SYMDIM_FORMAT_JSON, &json, &len) != SYMDIM_OK) {
            return fail();
        }
        double elapsed = now() - start;
        bytes += len;
        symdim_string_free(json);
        symdim_shapes_free(shapes);
        symdim_model_free(model);
        printf("%.9f\n", elapsed);
    }
    /* What the runs made, so that the work cannot be skipped. */
    fprintf(stderr, "report bytes: %zu\n", bytes);
    return 0;
}
