// exceptions.cc -- C++ exceptions across a marker's frame (dao's own code).
//
// Exercises: a marker in `step`, whose frame holds an object with a
// destructor (the call after the marker is an invoke with a cleanup
// landing pad); an exception thrown after the marker two calls deeper, on
// some steps, unwinding through `step`'s frame (rebuilt by a restart when
// the checkpoint was taken at that step) to a handler in `main`, whose own
// call of `step` is an invoke inside `try`; a function that catches around
// a marker of its own (`guarded`: try { marker; may throw } catch); the
// counts of constructions and destructions (a cleanup must run exactly
// once, also after a restart) and of the exceptions caught.
//
// Invariant: the output appended across crashes and restarts equals the
// uninterrupted run's: the same sums, the same number of exceptions
// caught, every constructed tracker destroyed exactly once.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>
#include "dao.h"

struct Tracker {
    static long made, destroyed;
    long id;
    Tracker() : id(++made) {}
    ~Tracker() { destroyed++; }
};
long Tracker::made = 0, Tracker::destroyed = 0;

struct StepError : std::runtime_error {
    int code;
    explicit StepError(int c) : std::runtime_error("step failed"), code(c) {}
};

static double work(std::vector<double> &a, int i) {
    Tracker t;
    double s = 0.0;
    for (size_t k = 0; k < a.size(); k++) {
        a[k] = a[k] * 0.5 + (double)((k + i) % 13);
        s += a[k];
    }
    if (i % 7 == 3)
        throw StepError(i);
    return s;
}

__attribute__((noinline)) static double deeper(std::vector<double> &a, int i) {
    Tracker t;
    return work(a, i) + 1.0;
}

__attribute__((noinline)) static double step(std::vector<double> &a, int i) {
    Tracker guard;
    dao_potential_checkpoint();
    double r = deeper(a, i);
    return r + (double)(guard.id % 3);
}

// catches around its own marker
__attribute__((noinline)) static long guarded(std::vector<long> &log, int i) {
    long v = 0;
    try {
        Tracker t;
        dao_potential_checkpoint();
        if (i % 5 == 1)
            throw std::out_of_range("guarded");
        v = i * 3;
    } catch (const std::out_of_range &) {
        v = -1;
    }
    log.push_back(v);
    return v;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 4000;
    std::vector<double> a(256, 1.0);
    std::vector<long> log;
    double acc = 0.0;
    long caught = 0, gsum = 0;
    for (int i = 0; i < n; i++) {
        try {
            acc += step(a, i);
        } catch (const StepError &e) {
            caught++;
            acc -= e.code;
        }
        gsum += guarded(log, i);
        if (i % 500 == 0)
            std::printf("i %d acc %a caught %ld gsum %ld made %ld destroyed %ld\n", i, acc, caught, gsum, Tracker::made, Tracker::destroyed);
    }
    long lsum = 0;
    for (long v : log)
        lsum += v;
    std::printf("final acc %a caught %ld gsum %ld log %zu/%ld made %ld destroyed %ld\n", acc, caught, gsum, log.size(), lsum, Tracker::made, Tracker::destroyed);
    return 0;
}
