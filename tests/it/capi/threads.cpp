// Independent handles from several threads at once: each thread loads MODEL,
// infers it and writes its JSON report; others read one shared model and one shared
// shapes handle at the same time. Every report must equal the one made on the main
// thread first; each thread's symdim_last_error() must be its own. Prints `ok N`
// (N reports compared) and exits 0, or says what differed and exits 1.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "symdim.h"

namespace {

std::string report(const SymdimModel *model) {
    SymdimShapes *shapes = nullptr;
    if (symdim_infer(model, nullptr, &shapes) != SYMDIM_OK) return "infer failed";
    char *json = nullptr;
    size_t len = 0;
    std::string out = "report failed";
    if (symdim_shapes_report(shapes, SYMDIM_FORMAT_JSON, &json, &len) == SYMDIM_OK) {
        out.assign(json, len);
        symdim_string_free(json);
    }
    symdim_shapes_free(shapes);
    return out;
}

std::string load_and_report(const char *path) {
    SymdimModel *model = nullptr;
    if (symdim_model_load(path, &model) != SYMDIM_OK) return "load failed";
    std::string out = report(model);
    symdim_model_free(model);
    return out;
}

std::string shared_report(const SymdimShapes *shapes) {
    char *json = nullptr;
    size_t len = 0;
    if (symdim_shapes_report(shapes, SYMDIM_FORMAT_JSON, &json, &len) != SYMDIM_OK)
        return "report failed";
    std::string out(json, len);
    symdim_string_free(json);
    // Walk every tensor too: the list is made once, by whichever thread is first.
    size_t n = 0;
    symdim_shapes_tensor_count(shapes, &n);
    for (size_t i = 0; i < n; ++i) {
        SymdimTensor *t = nullptr;
        if (symdim_shapes_tensor_at(shapes, i, &t) != SYMDIM_OK) return "tensor failed";
        symdim_tensor_free(t);
    }
    return out;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: threads MODEL\n");
        return 2;
    }
    const char *path = argv[1];
    const std::string expected = load_and_report(path);
    SymdimModel *model = nullptr;
    SymdimShapes *shapes = nullptr;
    if (symdim_model_load(path, &model) != SYMDIM_OK ||
        symdim_infer(model, nullptr, &shapes) != SYMDIM_OK) {
        std::fprintf(stderr, "setup failed\n");
        return 1;
    }
    const int per_kind = 4;
    std::vector<std::string> got(3 * per_kind);
    std::atomic<int> wrong_errors{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < per_kind; ++i) {
        threads.emplace_back([&, i] {
            // A failure on this thread sets its own message only.
            SymdimDim *d = nullptr;
            if (symdim_dim_parse("2*", &d) != SYMDIM_ERROR_EXPR || symdim_last_error() == nullptr)
                ++wrong_errors;
            got[i] = load_and_report(path);
            if (symdim_last_error() != nullptr) ++wrong_errors;
        });
        threads.emplace_back([&, i] { got[per_kind + i] = report(model); });
        threads.emplace_back([&, i] { got[2 * per_kind + i] = shared_report(shapes); });
    }
    for (auto &t : threads) t.join();
    symdim_shapes_free(shapes);
    symdim_model_free(model);
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != expected) {
            std::fprintf(stderr, "report %zu differs (%zu bytes, expected %zu)\n", i,
                         got[i].size(), expected.size());
            ++bad;
        }
    }
    if (wrong_errors != 0) {
        std::fprintf(stderr, "symdim_last_error() was wrong on %d threads\n", wrong_errors.load());
        ++bad;
    }
    if (bad) return 1;
    std::printf("ok %zu\n", got.size());
    return 0;
}
