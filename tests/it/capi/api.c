/*
 * The C API's calls beside the CLI's commands, for tests/it/capi/mod.rs to compare
 * byte for byte:
 *
 *   api text MODEL [NAME=VALUE...]      symdim infer MODEL --format text --bind ...
 *   api contract MODEL                  symdim constraints MODEL --format json
 *   api check MODEL NAME=VALUE...       symdim check MODEL --format json --bind ...
 *   api explain MODEL TARGET            symdim explain MODEL TARGET
 *   api simplify EXPR [FACT...]         symdim simplify EXPR --assume FACT...
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
    CALL(symdim_model_load(argv[2], &model));
    SymdimFacts *facts = NULL;
    CALL(symdim_facts_new(&facts));
    int status = 0;
    if (strcmp(mode, "check") == 0) {
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
