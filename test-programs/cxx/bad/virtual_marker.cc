// virtual_marker.cc -- MUST BE REJECTED at compile time.
//
// A marker inside a virtual function, called through a base-class pointer
// (virtual dispatch: an indirect call through the vtable). A restart
// cannot rebuild a call chain through an indirect call, so `dao c++` must
// fail with a diagnostic naming file:line, the virtual function and the
// vtable. The harness accepts a diagnostic naming any line marked
// `dao-expect-error`.
#include <cstdio>
#include "dao.h"

struct Solver {
    virtual ~Solver() = default;
    virtual double step(double x) = 0;
};

struct Jacobi : Solver {
    double step(double x) override {
        dao_potential_checkpoint(); /* dao-expect-error */
        return x * 0.5 + 1.0; /* dao-expect-error */
    }
};

struct Plain : Solver {
    double step(double x) override { return x * 0.25; }
};

int main(int argc, char **argv) {
    (void)argv;
    Solver *s = argc > 5 ? static_cast<Solver *>(new Plain) : new Jacobi;
    double x = 1.0;
    for (int i = 0; i < 100; i++)
        x = s->step(x);
    std::printf("%a\n", x);
    delete s;
    return 0;
}
