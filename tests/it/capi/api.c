/*
 * The C API's calls beside the CLI's commands, for tests/it/capi/mod.rs to compare
 * byte for byte:
 *
 *   api text MODEL [NAME=VALUE...]      symdim infer MODEL --format text --bind ...
 *   api contract MODEL                  symdim constraints MODEL --format json
 *   api check MODEL NAME=VALUE...       symdim check MODEL --format json --bind ...
 *   api explain MODEL TARGET            symdim explain MODEL TARGET
 *   api simplify EXPR [FACT...]         symdim simplify EXPR --assume FACT...
 *   api query MODEL A B [FACT]          equal(A, B), le(A, B) and the bounds of A
 *                                       under the model's facts (and FACT assumed)
 *   api concretize MODEL NAME=VALUE...  symdim infer MODEL --format text --bind ...
 *                                       (by concretizing the symbolic shapes)
 *   api annotate MODEL OUT              symdim infer MODEL -o OUT
 *   api onednn MODEL SYMBOL...          symdim infer MODEL --format text --symbol ...
 *   api format MODEL N                  the report, contract and check calls with the
 *                                       format integer N: each call's status and message
 *
 * Each prints what the call returned and exits with the CLI's status; a failed call
 * prints `symdim: MESSAGE` on stderr and exits with 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symdim.h"

static int fail(SymdimStatus s) {
    const char *why = symdim_last_error();
    fprintf(stderr, "symdim: %s\n", why ? why : "(no message)");
    (void)s;
    return 2;
}

#define CALL(x)                                \
    do {                                       \
        SymdimStatus s_ = (x);                 \
        if (s_ != SYMDIM_OK) return fail(s_);  \
    } while (0)

static int print(char *s) {
    fputs(s, stdout);
    symdim_string_free(s);
    return 0;
}

/* NAME=VALUE arguments as bindings of `facts`. */
static int bind_all(SymdimFacts *facts, int n, char **args) {
    for (int i = 0; i < n; ++i) {
        char *eq = strrchr(args[i], '=');
        if (!eq) {
            fprintf(stderr, "api: %s is not NAME=VALUE\n", args[i]);
            return 2;
        }
        *eq = '\0';
        CALL(symdim_facts_bind(facts, args[i], strtoll(eq + 1, NULL, 10)));
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: api text|contract|check|explain|simplify ARGS\n");
        return 2;
    }
    const char *mode = argv[1];
    char *out = NULL;
    if (strcmp(mode, "simplify") == 0) {
        CALL(symdim_simplify(argv[2], (const char *const *)(argv + 3), (size_t)(argc - 3), &out));
        print(out);
        putchar('\n');
        return 0;
    }
    SymdimModel *model = NULL;
    if (strcmp(mode, "onednn") == 0) {
        CALL(symdim_model_load_onednn(argv[2], (const char *const *)(argv + 3),
                                      (size_t)(argc - 3), &model));
        SymdimShapes *shapes = NULL;
        CALL(symdim_infer(model, NULL, &shapes));
        bool errors = false;
        CALL(symdim_shapes_report(shapes, SYMDIM_FORMAT_TEXT, &out, NULL));
        CALL(symdim_shapes_has_errors(shapes, &errors));
        print(out);
        CALL(symdim_shapes_free(shapes));
        CALL(symdim_model_free(model));
        return errors ? 1 : 0;
    }
    CALL(symdim_model_load(argv[2], &model));
    SymdimFacts *facts = NULL;
    CALL(symdim_facts_new(&facts));
    int status = 0;
    if (strcmp(mode, "query") == 0 && (argc == 5 || argc == 6)) {
        if (argc == 6) CALL(symdim_facts_assume(facts, argv[5]));
        SymdimShapes *shapes = NULL;
        SymdimDim *a = NULL, *b = NULL;
        CALL(symdim_infer(model, facts, &shapes));
        CALL(symdim_dim_parse(argv[3], &a));
        CALL(symdim_dim_parse(argv[4], &b));
        static const char *truth[] = {"false", "true", "unknown"};
        SymdimTruth eq, le;
        CALL(symdim_shapes_equal(shapes, a, b, &eq));
        CALL(symdim_shapes_le(shapes, a, b, &le));
        bool has_lo = false, has_hi = false;
        int64_t lo = 0, hi = 0;
        CALL(symdim_shapes_bounds(shapes, a, &has_lo, &lo, &has_hi, &hi));
        printf("equal %s\nle %s\nbounds ", truth[eq], truth[le]);
        if (has_lo) printf("%lld", (long long)lo); else printf("-inf");
        printf("..");
        if (has_hi) printf("%lld\n", (long long)hi); else printf("inf\n");
        CALL(symdim_dim_free(a));
        CALL(symdim_dim_free(b));
        CALL(symdim_shapes_free(shapes));
    } else if (strcmp(mode, "concretize") == 0) {
        SymdimShapes *shapes = NULL, *concrete = NULL;
        CALL(symdim_infer(model, facts, &shapes));
        int n = argc - 3;
        const char *names[16];
        int64_t values[16];
        if (n > 16) return 2;
        for (int i = 0; i < n; ++i) {
            char *eq = strrchr(argv[3 + i], '=');
            if (!eq) return 2;
            *eq = '\0';
            names[i] = argv[3 + i];
            values[i] = strtoll(eq + 1, NULL, 10);
        }
        CALL(symdim_shapes_concretize(shapes, names, values, (size_t)n, &concrete));
        /* The symbolic shapes may go first: the concrete ones keep the model. */
        CALL(symdim_shapes_free(shapes));
        bool errors = false;
        CALL(symdim_shapes_report(concrete, SYMDIM_FORMAT_TEXT, &out, NULL));
        CALL(symdim_shapes_has_errors(concrete, &errors));
        print(out);
        status = errors ? 1 : 0;
        CALL(symdim_shapes_free(concrete));
    } else if (strcmp(mode, "annotate") == 0 && argc == 4) {
        FILE *f = fopen(argv[2], "rb");
        if (!f) return 2;
        static uint8_t bytes[1 << 20];
        size_t len = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        SymdimShapes *shapes = NULL;
        uint8_t *written = NULL;
        size_t written_len = 0;
        CALL(symdim_infer(model, facts, &shapes));
        CALL(symdim_shapes_annotated(shapes, bytes, len, &written, &written_len));
        FILE *o = fopen(argv[3], "wb");
        if (!o || fwrite(written, 1, written_len, o) != written_len) return 2;
        fclose(o);
        CALL(symdim_bytes_free(written));
        /* Bytes that are not a model are refused, not written. */
        SymdimStatus bad = symdim_shapes_annotated(shapes, (const uint8_t *)"junk", 4,
                                                   &written, &written_len);
        printf("junk: %d %s\n", (int)bad, bad == SYMDIM_OK ? "" : symdim_last_error());
        CALL(symdim_shapes_free(shapes));
    } else if (strcmp(mode, "format") == 0 && argc == 4) {
        /* A C caller may pass any int where the header names SymdimFormat. */
        int format = atoi(argv[3]);
        SymdimShapes *shapes = NULL;
        CALL(symdim_infer(model, facts, &shapes));
        for (int i = 0; i < 3; ++i) {
            SymdimStatus st = i == 0   ? symdim_shapes_report(shapes, format, &out, NULL)
                              : i == 1 ? symdim_shapes_contract(shapes, format, &out, NULL)
                                       : symdim_check(model, facts, format, &out, NULL);
            printf("%d %s\n", (int)st, st == SYMDIM_OK ? "ok" : symdim_last_error());
            if (st == SYMDIM_OK) symdim_string_free(out);
        }
        CALL(symdim_shapes_free(shapes));
    } else if (strcmp(mode, "check") == 0) {
        if ((status = bind_all(facts, argc - 3, argv + 3)) != 0) return status;
        int code = 0;
        CALL(symdim_check(model, facts, SYMDIM_FORMAT_JSON, &out, &code));
        print(out);
        status = code;
    } else {
        if (strcmp(mode, "text") == 0 && (status = bind_all(facts, argc - 3, argv + 3)) != 0) {
            return status;
        }
        SymdimShapes *shapes = NULL;
        CALL(symdim_infer(model, facts, &shapes));
        if (strcmp(mode, "text") == 0) {
            size_t len = 0;
            bool errors = false;
            CALL(symdim_shapes_report(shapes, SYMDIM_FORMAT_TEXT, &out, &len));
            CALL(symdim_shapes_has_errors(shapes, &errors));
            if (strlen(out) != len) return 3;
            print(out);
            status = errors ? 1 : 0;
        } else if (strcmp(mode, "contract") == 0) {
            CALL(symdim_shapes_contract(shapes, SYMDIM_FORMAT_JSON, &out, NULL));
            print(out);
        } else if (strcmp(mode, "explain") == 0 && argc == 4) {
            CALL(symdim_shapes_explain(shapes, argv[3], &out));
            print(out);
        } else {
            fprintf(stderr, "api: unknown mode %s\n", mode);
            status = 2;
        }
        CALL(symdim_shapes_free(shapes));
    }
    CALL(symdim_facts_free(facts));
    CALL(symdim_model_free(model));
    return status;
}
