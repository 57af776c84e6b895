// npb_kernel.cc -- an NPB-like C++ kernel whose main loop runs inside one
// parallel region (dao's own code, in the style of the C++ NPB ports).
//
// Exercises: the marker at the top of an iteration loop inside `omp
// parallel` (every thread checkpoints at its own position); member
// functions called from the region with orphaned `omp for` loops and
// `omp master` output; `std::vector` state of a class reached through
// `this`; a template function; C++ calls inside the region are invokes
// (clang wraps region bodies in a terminate scope), so the marker's path
// runs through invokes; `new[]`/`delete[]`.
//
// Invariant: the output appended across crashes and restarts equals the
// uninterrupted run's at the same thread count (per-element results,
// integer reductions, a serial checksum by the master after a barrier).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <omp.h>
#include "dao.h"

template <typename T>
static T clamp_add(T a, T b, T hi) {
    T s = a + b;
    return s > hi ? s - hi : s;
}

// the reduction's shared target (a reduction list item must be shared)
static long g_sum;

class Kernel {
  public:
    explicit Kernel(int n) : n_(n), u_(n), w_(n) {
        for (int i = 0; i < n; i++)
            u_[i] = (i * 37) % 101;
        hist_ = new long[16]();
    }
    ~Kernel() { delete[] hist_; }

    // orphaned worksharing loops: called by every thread of the team
    void relax(int it) {
        long *u = u_.data(), *w = w_.data();
#pragma omp for schedule(static)
        for (int i = 0; i < n_; i++) {
            long l = u[i > 0 ? i - 1 : n_ - 1], r = u[i + 1 < n_ ? i + 1 : 0];
            w[i] = clamp_add<long>(l + r, u[i] + it, 1000003);
        }
#pragma omp for schedule(static)
        for (int i = 0; i < n_; i++)
            u[i] = w[i] % 9973;
    }

    // called by every thread of the team (or serially)
    long checksum() {
#pragma omp single
        g_sum = 0;
#pragma omp for reduction(+ : g_sum) schedule(static)
        for (int i = 0; i < n_; i++)
            g_sum += u_[i] * (i % 7 + 1);
        return g_sum;
    }

    void record(int it, long s) {
#pragma omp master
        {
            hist_[it % 16] += s;
            if (it % 5 == 0)
                std::printf("it %d checksum %ld hist %ld\n", it, s, hist_[it % 16]);
        }
    }

  private:
    int n_;
    std::vector<long> u_, w_;
    long *hist_;
};

int main(int argc, char **argv) {
    int niter = argc > 1 ? std::atoi(argv[1]) : 200;
    Kernel *k = new Kernel(50000);
    int it;
#pragma omp parallel private(it) firstprivate(niter)
    {
        for (it = 1; it <= niter; it++) {
            dao_potential_checkpoint();
            k->relax(it);
            long s = k->checksum();
            k->record(it, s);
#pragma omp barrier
        }
    }
    std::printf("final %ld\n", k->checksum());
    delete k;
    return 0;
}
