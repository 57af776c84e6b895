// templates_uptr.cc -- templates, std::unique_ptr and other C++ state
// around a marker (dao's own code).
//
// Exercises: a class template holding a `std::unique_ptr<T[]>` (a dao heap
// block owned through a pointer inside the object); a vector of
// `std::unique_ptr<Shape>` to objects with virtual functions, called off
// the marker's path (their vtable pointers are saved with the objects and
// point into the non-PIE executable); objects replaced while the program
// runs (delete, then new: the dao heap's free lists must be restored too);
// a global `std::vector` built by a static initializer (llvm.global_ctors)
// and destroyed at exit (`__cxa_atexit`); a `thread_local` counter; a
// generic lambda passed to a function template; a `std::string` built and
// kept across the marker (its buffer allocated inside libstdc++.so, by the
// runtime's operator new); output through std::cout after
// `std::ios::sync_with_stdio(false)` (cout's own buffer, flushed at each
// checkpoint).
//
// Invariant: the output appended across crashes and restarts equals the
// uninterrupted run's.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>
#include "dao.h"

template <typename T, int N>
class Ring {
  public:
    Ring() : data_(new T[N]()) {}
    void push(T v) { data_[pos_++ % N] = v; }
    T sum() const {
        T s = T();
        for (int i = 0; i < N; i++)
            s += data_[i];
        return s;
    }

  private:
    std::unique_ptr<T[]> data_;
    long pos_ = 0;
};

struct Shape {
    virtual ~Shape() = default;
    virtual long area() const = 0;
    virtual void grow(long k) = 0;
};
struct Square : Shape {
    long s;
    explicit Square(long s) : s(s) {}
    long area() const override { return s * s; }
    void grow(long k) override { s = (s + k) % 1000; }
};
struct Rect : Shape {
    long w, h;
    Rect(long w, long h) : w(w), h(h) {}
    long area() const override { return w * h; }
    void grow(long k) override { w = (w + k) % 700; h = (h + 2 * k) % 300; }
};

static std::vector<long> make_table() {
    std::vector<long> t;
    for (long i = 0; i < 64; i++)
        t.push_back(i * i % 97);
    return t;
}
// a static initializer and, at exit, a destructor
static std::vector<long> g_table = make_table();

thread_local long tl_calls = 0;

template <typename F>
static long apply_all(std::vector<std::unique_ptr<Shape>> &v, F f) {
    long s = 0;
    for (auto &p : v)
        s += f(*p);
    tl_calls++;
    return s;
}

static void step(std::vector<std::unique_ptr<Shape>> &shapes, Ring<long, 32> &ring, std::string &tag, int i) {
    dao_potential_checkpoint();
    long a = apply_all(shapes, [&](auto &s) { s.grow(g_table[i % 64]); return s.area(); });
    ring.push(a);
    if (i % 37 == 0) {
        // replace one object: delete the old one, new a different kind
        size_t k = (size_t)i % shapes.size();
        if (i % 2)
            shapes[k] = std::make_unique<Rect>(i % 11 + 1, i % 5 + 1);
        else
            shapes[k] = std::make_unique<Square>(i % 13 + 1);
        tag += (char)('a' + i % 26);
    }
}

int main(int argc, char **argv) {
    std::ios::sync_with_stdio(false);
    int n = argc > 1 ? std::atoi(argv[1]) : 20000;
    std::vector<std::unique_ptr<Shape>> shapes;
    for (int k = 0; k < 12; k++) {
        if (k % 3)
            shapes.push_back(std::make_unique<Square>(k + 1));
        else
            shapes.push_back(std::make_unique<Rect>(k + 2, k + 3));
    }
    auto ring = std::make_unique<Ring<long, 32>>();
    std::string tag = "tag:";
    for (int i = 0; i < n; i++) {
        step(shapes, *ring, tag, i);
        if (i % 2000 == 0)
            std::cout << "i " << i << " ring " << ring->sum() << " calls " << tl_calls << " tag " << tag.size() << "\n";
    }
    std::cout << "final ring " << ring->sum() << " calls " << tl_calls << " tag " << tag << "\n";
    return 0;
}
