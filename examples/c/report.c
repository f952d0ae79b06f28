/*
 * report MODEL: print the JSON report of MODEL, the bytes that
 * `symdim infer MODEL --format json` prints, and exit with the CLI's status:
 * 0 when inferred with no error diagnostic, 1 when the report holds an error,
 * 2 when no report is possible (the message goes to stderr).
 *
 * Build (docs/c-api.md):
 *   cargo build --release -p symdim-capi
 *   cc -Iinclude examples/c/report.c -Ltarget/release -lsymdim -o report
 */
#include <stdio.h>

#include "symdim.h"

/* Say why the last call failed, as the CLI does, and give its status 2. */
static int fail(void) {
    const char *why = symdim_last_error();
    fprintf(stderr, "symdim: %s\n", why ? why : "unknown error");
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: report MODEL\n");
        return 2;
    }
    SymdimModel *model = NULL;
    if (symdim_model_load(argv[1], &model) != SYMDIM_OK) {
        return fail();
    }
    SymdimShapes *shapes = NULL;
    SymdimStatus inferred = symdim_infer(model, NULL, &shapes);
    /* The shapes keep what they need of the model. */
    symdim_model_free(model);
    if (inferred != SYMDIM_OK) {
        return fail();
    }
    char *json = NULL;
    size_t len = 0;
    bool has_errors = false;
    if (symdim_shapes_report(shapes, SYMDIM_FORMAT_JSON, &json, &len) != SYMDIM_OK ||
        symdim_shapes_has_errors(shapes, &has_errors) != SYMDIM_OK) {
        symdim_shapes_free(shapes);
        return fail();
    }
    int status = has_errors ? 1 : 0;
    if (fwrite(json, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "symdim: cannot write the report\n");
        status = 2;
    }
    symdim_string_free(json);
    symdim_shapes_free(shapes);
    return status;
}
