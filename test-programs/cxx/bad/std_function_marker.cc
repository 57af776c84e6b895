// std_function_marker.cc -- MUST BE REJECTED at compile time.
//
// A marker inside a lambda called through a std::function: the call goes
// through a function pointer std::function stores (its handler's
// _M_invoke), so a restart cannot rebuild the chain. `dao c++` must fail
// with a diagnostic naming std::function and a line of this file (the
// marker's), not of the library header. The harness accepts a diagnostic
// naming any line marked `dao-expect-error`.
#include <cstdio>
#include <functional>
#include "dao.h"

int main(int argc, char **argv) {
    (void)argv;
    double x = 1.0;
    std::function<double(double)> f = [](double v) {
        dao_potential_checkpoint(); /* dao-expect-error */
        return v * 0.5 + 1.0;
    };
    for (int i = 0; i < 100 + argc; i++)
        x = f(x);
    std::printf("%a\n", x);
    return 0;
}
