// shapes MODEL [NAME=VALUE...]: load a model, infer it, and print each graph
// output's shape, one line each (`logits: [batch, sequence, 32000]`); with values
// for symbols, each output's dims evaluated at them follow (`logits = [4, 128,
// 32000]`, `?` for a dim they do not decide).
// shapes --json MODEL: print the JSON report, the bytes of `symdim infer MODEL
// --format json`, with the CLI's exit status.
//
// Build (docs/c-api.md):
//   cargo build --release -p symdim-capi
//   c++ -std=c++17 -Iinclude examples/cpp/shapes.cpp -Ltarget/release -lsymdim -o shapes
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "symdim.h"

namespace {

// A failed call as an exception carrying symdim_last_error().
struct Error : std::runtime_error {
    SymdimStatus status;
    Error(SymdimStatus s, const char *why)
        : std::runtime_error(why ? why : "unknown error"), status(s) {}
};

void check(SymdimStatus s) {
    if (s != SYMDIM_OK) throw Error(s, symdim_last_error());
}

// Each handle owned by a unique_ptr that frees it.
template <typename T, SymdimStatus (*Free)(T *)>
struct Deleter {
    void operator()(T *p) const { Free(p); }
};
using Model = std::unique_ptr<SymdimModel, Deleter<SymdimModel, symdim_model_free>>;
using Facts = std::unique_ptr<SymdimFacts, Deleter<SymdimFacts, symdim_facts_free>>;
using Shapes = std::unique_ptr<SymdimShapes, Deleter<SymdimShapes, symdim_shapes_free>>;
using Tensor = std::unique_ptr<SymdimTensor, Deleter<SymdimTensor, symdim_tensor_free>>;
using Dim = std::unique_ptr<SymdimDim, Deleter<SymdimDim, symdim_dim_free>>;

// A string the library returned, copied and freed.
std::string take(char *s, size_t len) {
    std::string out(s, len);
    symdim_string_free(s);
    return out;
}

std::string take(char *s) {
    std::string out(s);
    symdim_string_free(s);
    return out;
}

Model load(const char *path) {
    SymdimModel *m = nullptr;
    check(symdim_model_load(path, &m));
    return Model(m);
}

Shapes infer(const Model &model, const Facts &facts) {
    SymdimShapes *s = nullptr;
    check(symdim_infer(model.get(), facts.get(), &s));
    return Shapes(s);
}

int json_report(const char *path) {
    Shapes shapes = infer(load(path), Facts());
    char *json = nullptr;
    size_t len = 0;
    check(symdim_shapes_report(shapes.get(), SYMDIM_FORMAT_JSON, &json, &len));
    bool has_errors = false;
    check(symdim_shapes_has_errors(shapes.get(), &has_errors));
    std::string text = take(json, len);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
        std::cerr << "symdim: cannot write the report\n";
        return 2;
    }
    return has_errors ? 1 : 0;
}

int print_shapes(const char *path, const std::vector<std::pair<std::string, int64_t>> &values) {
    Model model = load(path);
    SymdimFacts *f = nullptr;
    check(symdim_facts_new(&f));
    Facts facts(f);
    Shapes shapes = infer(model, facts);
    std::vector<const char *> names;
    std::vector<int64_t> ints;
    for (const auto &v : values) {
        names.push_back(v.first.c_str());
        ints.push_back(v.second);
    }
    size_t outputs = 0;
    check(symdim_shapes_output_count(shapes.get(), &outputs));
    for (size_t i = 0; i < outputs; ++i) {
        char *n = nullptr;
        check(symdim_shapes_output_name(shapes.get(), i, &n));
        std::string name = take(n);
        SymdimTensor *t = nullptr;
        check(symdim_shapes_tensor(shapes.get(), name.c_str(), &t));
        Tensor tensor(t);
        char *shape = nullptr;
        check(symdim_tensor_shape_text(tensor.get(), &shape));
        std::cout << name << ": " << take(shape) << "\n";
        int64_t rank = -1;
        check(symdim_tensor_rank(tensor.get(), &rank));
        if (values.empty() || rank < 0) continue;
        std::cout << name << " = [";
        for (int64_t axis = 0; axis < rank; ++axis) {
            SymdimDim *d = nullptr;
            check(symdim_tensor_dim(tensor.get(), static_cast<size_t>(axis), &d));
            Dim dim(d);
            int64_t value = 0;
            SymdimStatus s = symdim_dim_eval(dim.get(), names.data(), ints.data(),
                                             names.size(), &value);
            if (axis > 0) std::cout << ", ";
            if (s == SYMDIM_OK) {
                std::cout << value;
            } else if (s == SYMDIM_ERROR_EVAL) {
                std::cout << "?";
            } else {
                check(s);
            }
        }
        std::cout << "]\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        if (argc == 3 && std::string(argv[1]) == "--json") return json_report(argv[2]);
        if (argc < 2) {
            std::cerr << "usage: shapes MODEL [NAME=VALUE...] | shapes --json MODEL\n";
            return 2;
        }
        std::vector<std::pair<std::string, int64_t>> values;
        for (int i = 2; i < argc; ++i) {
            std::string arg = argv[i];
            size_t eq = arg.rfind('=');
            if (eq == std::string::npos) {
                std::cerr << "shapes: " << arg << " is not NAME=VALUE\n";
                return 2;
            }
            values.emplace_back(arg.substr(0, eq), std::stoll(arg.substr(eq + 1)));
        }
        return print_shapes(argv[1], values);
    } catch (const Error &e) {
        std::cerr << "symdim: " << e.what() << "\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "shapes: " << e.what() << "\n";
        return 2;
    }
}
