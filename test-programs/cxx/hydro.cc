// hydro.cc -- a LULESH-like hydrodynamics mini-app in C++ (dao's own code).
//
// Exercises: a `Domain` class holding `std::vector<double>` fields (heap
// blocks from operator new, reached through the object's vector data
// pointers), allocated with `new` and released with `delete`; member
// functions on the marker's call chain (`Simulation::run`, whose `this`
// holds a reference to the Domain and a vector grown while it runs); lambdas as
// the bodies of `omp parallel for` loops (outlined regions that call the
// lambda's operator()); a reference parameter; the time-step loop with a
// marker at its top, between parallel regions; results printed with
// iostream (std::cout, flushed at a checkpoint and rewound with stdout).
//
// Invariant: the output appended across crashes and restarts equals the
// uninterrupted run's (fixed per-element results, reductions over integers
// and a fixed-order serial sum).
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <vector>
#include "dao.h"

class Domain {
  public:
    explicit Domain(int n) : n_(n), x_(n), v_(n), e_(n), p_(n), q_(n) {
        for (int i = 0; i < n_; i++) {
            x_[i] = i * 0.01;
            v_[i] = 0.0;
            e_[i] = (i == n_ / 2) ? 1.0 : 1e-6;
            p_[i] = 0.0;
            q_[i] = 0.0;
        }
    }
    int size() const { return n_; }
    double time() const { return time_; }
    int cycle() const { return cycle_; }

    // one Lagrange step: pressure, forces, velocities, energies
    void step(double dt) {
        const int n = n_;
        double *p = p_.data(), *e = e_.data(), *q = q_.data(), *v = v_.data(), *x = x_.data();
        auto eos = [=](int i) { p[i] = 0.4 * e[i] * (1.0 + q[i]); };
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            eos(i);
        auto force = [&](int i) {
            double l = i > 0 ? p[i - 1] : p[i];
            double r = i + 1 < n ? p[i + 1] : p[i];
            v[i] += dt * (l - r) * 0.5;
        };
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            force(i);
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            x[i] += dt * v[i];
            q[i] = v[i] < 0 ? -v[i] * 0.1 : 0.0;
            e[i] = e[i] * 0.999 + 0.001 * p[i] + 1e-9;
        }
        time_ += dt;
        cycle_++;
    }

    double energy() const {
        double s = 0.0;
        for (int i = 0; i < n_; i++)
            s += e_[i];
        return s;
    }

    long signs() const {
        long k = 0;
#pragma omp parallel for reduction(+ : k) schedule(static)
        for (int i = 0; i < n_; i++)
            k += v_[i] > 0 ? 1 : 0;
        return k;
    }

  private:
    int n_;
    double time_ = 0.0;
    int cycle_ = 0;
    std::vector<double> x_, v_, e_, p_, q_;
};

static void report(const Domain &d) {
    std::cout << "cycle " << d.cycle() << " time " << std::setprecision(17) << d.time()
              << " energy " << d.energy() << " positive " << d.signs() << "\n";
}

// the time-step loop as a member function: `this` (and the Domain
// reference it holds) on the marker's call chain
class Simulation {
  public:
    Simulation(Domain &d, int steps) : dom_(d), steps_(steps) {}
    void run() {
        while (dom_.cycle() < steps_) {
            dao_potential_checkpoint();
            dom_.step(1e-3);
            if (dom_.cycle() % 10 == 0) {
                report(dom_);
                history_.push_back(dom_.energy());
            }
        }
    }
    double history_sum() const {
        double s = 0.0;
        for (double e : history_)
            s += e;
        return s;
    }

  private:
    Domain &dom_;
    int steps_;
    std::vector<double> history_;
};

int main(int argc, char **argv) {
    int steps = argc > 1 ? std::atoi(argv[1]) : 400;
    Domain *dom = new Domain(20000);
    Simulation sim(*dom, steps);
    sim.run();
    std::cout << "final energy " << std::setprecision(17) << dom->energy() << " history " << sim.history_sum() << std::endl;
    delete dom;
    return 0;
}
