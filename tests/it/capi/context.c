/*
 * The ShapesContext operations of the shape-tensor spec through the C API, and the
 * API's error conventions. Prints one line per step; tests/it/capi/mod.rs compares
 * them with what the spec (onnx-optim-shape_tensor.h) and the ONNX operators say,
 * derived by hand there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symdim.h"

static const char *status_name(SymdimStatus s) {
    switch (s) {
        case SYMDIM_OK: return "OK";
        case SYMDIM_ERROR_NULL: return "NULL";
        case SYMDIM_ERROR_UTF8: return "UTF8";
        case SYMDIM_ERROR_LOAD: return "LOAD";
        case SYMDIM_ERROR_FACTS: return "FACTS";
        case SYMDIM_ERROR_OP_RULES: return "OP_RULES";
        case SYMDIM_ERROR_EXPR: return "EXPR";
        case SYMDIM_ERROR_NOT_FOUND: return "NOT_FOUND";
        case SYMDIM_ERROR_UNKNOWN: return "UNKNOWN";
        case SYMDIM_ERROR_EVAL: return "EVAL";
        case SYMDIM_ERROR_EXPLAIN: return "EXPLAIN";
        case SYMDIM_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
        case SYMDIM_ERROR_OUT_OF_RANGE: return "OUT_OF_RANGE";
        case SYMDIM_ERROR_ARGUMENT: return "ARGUMENT";
        case SYMDIM_ERROR_INTERNAL: return "INTERNAL";
    }
    return "?";
}

/* `label: STATUS`, and whether symdim_last_error() is set as it should be. */
static void said(const char *label, SymdimStatus s) {
    const char *why = symdim_last_error();
    int consistent = (s == SYMDIM_OK) == (why == NULL);
    printf("%s: %s%s\n", label, status_name(s), consistent ? "" : " (last_error inconsistent)");
}

/* `label: dtype RANK [dims] value [contents]` of a context tensor. */
static void show(SymdimContext *ctx, const char *name) {
    SymdimTensor *t = NULL;
    SymdimStatus s = symdim_context_tensor(ctx, name, &t);
    if (s != SYMDIM_OK) {
        said(name, s);
        return;
    }
    int32_t dtype = -1;
    int64_t rank = -2, len = -2;
    char *shape = NULL;
    symdim_tensor_dtype(t, &dtype);
    symdim_tensor_rank(t, &rank);
    symdim_tensor_shape_text(t, &shape);
    symdim_tensor_value_len(t, &len);
    printf("%s: dtype %d rank %lld %s", name, (int)dtype, (long long)rank, shape);
    symdim_string_free(shape);
    if (len >= 0) {
        printf(" value [");
        for (int64_t i = 0; i < len; ++i) {
            SymdimDim *d = NULL;
            char *text = NULL;
            symdim_tensor_value_at(t, (size_t)i, &d);
            symdim_dim_text(d, &text);
            printf("%s%s", i ? ", " : "", text);
            symdim_string_free(text);
            symdim_dim_free(d);
        }
        printf("]");
    }
    printf("\n");
    symdim_tensor_free(t);
}

int main(void) {
    SymdimContext *ctx = NULL;
    said("new", symdim_context_new(14, &ctx));

    /* Concat of [B, N] and [B, M] on axis 1: [B, M + N] (a symbolic sum). */
    const char *xy[] = {"B", "N"};
    const char *yd[] = {"B", "M"};
    said("set x", symdim_context_set_tensor(ctx, "x", 1, xy, 2));
    said("set y", symdim_context_set_tensor(ctx, "y", 1, yd, 2));
    const char *cat_in[] = {"x", "y"};
    int64_t axis = 1;
    said("concat", symdim_context_concat(ctx, cat_in, 2, "z", &axis));
    show(ctx, "z");
    /* Without the attribute, the opset-1 default axis 1. */
    said("concat default axis", symdim_context_concat(ctx, cat_in, 2, "z1", NULL));
    show(ctx, "z1");
    /* Axis 0: the other dims differ (N and M are not proven equal) -> an invalid
       argument only when they are known different; 3 and 4 are. */
    const char *a34[] = {"3", "4"};
    const char *a35[] = {"3", "5"};
    said("set a", symdim_context_set_tensor(ctx, "a", 1, a34, 2));
    said("set b", symdim_context_set_tensor(ctx, "b", 1, a35, 2));
    const char *ab[] = {"a", "b"};
    int64_t axis0 = 0;
    said("concat mismatch", symdim_context_concat(ctx, ab, 2, "c", &axis0));
    const char *missing[] = {"x", "nope"};
    said("concat missing input", symdim_context_concat(ctx, missing, 2, "c", &axis));

    /* Cast keeps the shape, takes the type of `to` (7: int64). */
    said("cast", symdim_context_cast(ctx, "z", "zi", 7));
    show(ctx, "zi");
    said("cast missing input", symdim_context_cast(ctx, "nope", "w", 7));

    /* Reshape [B, 6, 4] by a shape tensor holding [B, -1]: [B, 24]. */
    const char *data[] = {"B", "6", "4"};
    const char *two[] = {"2"};
    const char *target[] = {"B", "-1"};
    said("set data", symdim_context_set_tensor(ctx, "data", 1, data, 3));
    said("set shape", symdim_context_set_tensor(ctx, "shape", 7, two, 1));
    said("set value", symdim_context_set_value(ctx, "shape", target, 2));
    show(ctx, "shape");
    said("reshape", symdim_context_reshape(ctx, "data", "shape", "r", 0));
    show(ctx, "r");
    /* 0 copies the input dim; with allowzero=1 it is a literal 0. */
    const char *zero[] = {"0", "-1"};
    said("set zero", symdim_context_set_tensor(ctx, "zshape", 7, two, 1));
    said("set zero value", symdim_context_set_value(ctx, "zshape", zero, 2));
    said("reshape 0", symdim_context_reshape(ctx, "data", "zshape", "r0", 0));
    show(ctx, "r0");
    /* Two -1 entries are an invalid argument. */
    const char *two_inferred[] = {"-1", "-1"};
    said("set bad", symdim_context_set_tensor(ctx, "bad", 7, two, 1));
    said("set bad value", symdim_context_set_value(ctx, "bad", two_inferred, 2));
    said("reshape two -1", symdim_context_reshape(ctx, "data", "bad", "rb", 0));
    said("value of missing", symdim_context_set_value(ctx, "nope", target, 2));
    said("set bad expr", symdim_context_set_tensor(ctx, "e", 1, (const char *[]){"2*"}, 1));

    /* Dims: parse, print, evaluate. */
    SymdimDim *d = NULL;
    said("parse", symdim_dim_parse("2*S + B*S", &d));
    char *text = NULL;
    said("text", symdim_dim_text(d, &text));
    printf("dim: %s\n", text);
    symdim_string_free(text);
    const char *names[] = {"S", "B"};
    int64_t values[] = {5, 3};
    int64_t v = 0;
    said("eval", symdim_dim_eval(d, names, values, 2, &v));
    printf("value: %lld\n", (long long)v);
    said("eval missing symbol", symdim_dim_eval(d, names, values, 1, &v));
    said("as_i64 symbolic", symdim_dim_as_i64(d, &v));
    symdim_dim_free(d);
    said("parse bad", symdim_dim_parse("2*", &d));
    said("parse NULL", symdim_dim_parse(NULL, &d));
    said("parse to NULL", symdim_dim_parse("1", NULL));
    said("parse bad UTF-8", symdim_dim_parse("\xff", &d));

    /* Loading and facts. */
    SymdimModel *m = NULL;
    said("load missing", symdim_model_load("/nonexistent/model.onnx", &m));
    said("load bytes", symdim_model_load_bytes((const uint8_t *)"hello", 5, "mem", &m));
    said("load empty", symdim_model_load_bytes(NULL, 0, "mem", &m));
    SymdimFacts *f = NULL;
    said("facts", symdim_facts_new(&f));
    said("assume bad", symdim_facts_assume(f, "N >="));
    said("bind expression", symdim_facts_bind(f, "a+b", 3));
    said("op rules bad", symdim_facts_op_rules(f, "this is not a rule\n", "rules.txt"));
    said("free facts", symdim_facts_free(f));
    said("free NULL", symdim_model_free(NULL));

    said("free context", symdim_context_free(ctx));
    return 0;
}
