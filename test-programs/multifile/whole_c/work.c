/* whole_c/work.c -- the state and the work of whole_c (see main.c). */
#define N 32768
double u[N];
double scratch[N];

void init(void) {
    for (int i = 0; i < N; i++)
        u[i] = 1.0 + (double)(i % 17) / 17.0;
}

void fill(int it) {
    for (int i = 0; i < N; i++)
        scratch[i] = u[i] * 0.5 + (double)it;
}

double use(int it) {
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        u[i] = 0.75 * u[i] + 0.25 * scratch[(i * 7) % N] / (1.0 + (double)it);
        s += scratch[i] * 1e-6;
    }
    for (volatile int w = 0; w < 300000; w++) {
    }
    return s;
}

double total(void) {
    double t = 0.0;
    for (int i = 0; i < N; i++)
        t += u[i];
    return t;
}
