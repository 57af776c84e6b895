/* backprop.c -- training a neural network with one hidden layer by back
 * propagation (sigmoid units, gradient descent with momentum), written for
 * dao as an OpenMP offload program (Jia, Yang and Ma's (2013) "BackProp").
 * IN inputs, HID hidden units, OUT outputs; P training patterns generated
 * on the host; a step trains on one pattern: the hidden layer's forward
 * pass (one device thread per hidden unit: a dot product over the inputs),
 * the output layer and its error, the hidden units' error, then the weight
 * adjustments of both layers (one device thread per weight).
 *
 * Device data: the patterns and targets (to, 1 MiB), the input-to-hidden
 * weights and their last changes (tofrom and alloc, 1 MiB each), the
 * hidden-to-output weights and changes, the activations and errors
 * (alloc scratch). Five kernels a step, a marker after the forward pass and
 * after the weight adjustment. Every 8 steps the output errors come back
 * and the squared error is printed; at the end a checksum of the weights
 * (host sums in a fixed order of values each computed by one device
 * thread: the same for any thread count).
 * Argument: steps (default 64).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dao.h"

#define IN 4096
#define HID 32
#define OUT 4
#define P 32
#define ETA 0.3
#define MOMENTUM 0.3

static double w2[(HID + 1) * OUT], dw2[(HID + 1) * OUT];
static double hid[HID + 1], hdelta[HID], out[OUT], odelta[OUT];

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 64;
    double *pat = malloc((long)P * (IN + 1) * sizeof(double)), *target = malloc(P * OUT * sizeof(double));
    double *w1 = malloc((IN + 1) * HID * sizeof(double)), *dw1 = malloc((IN + 1) * HID * sizeof(double));
    unsigned s = 2013;
#define RAND() ((s = s * 1103515245u + 12345u), ((s >> 9) & 0xffff) / 65536.0)
    for (int p = 0; p < P; p++) {
        pat[(long)p * (IN + 1)] = 1.0; /* bias */
        for (int i = 1; i <= IN; i++)
            pat[(long)p * (IN + 1) + i] = RAND();
        for (int o = 0; o < OUT; o++)
            target[p * OUT + o] = 0.1 + 0.8 * ((p >> o) & 1);
    }
    for (int k = 0; k < (IN + 1) * HID; k++)
        w1[k] = (RAND() - 0.5) * 0.02;
    for (int k = 0; k < (HID + 1) * OUT; k++)
        w2[k] = RAND() - 0.5;
    printf("backprop %d-%d-%d, %d patterns\n", IN, HID, OUT, P);
    double total = 0;
#pragma omp target enter data map(to: pat[0:P * (IN + 1)], target[0:P * OUT]) map(alloc: dw1[0:(IN + 1) * HID])
#pragma omp target data map(tofrom: w1[0:(IN + 1) * HID], w2) map(alloc: dw2, hid, hdelta, out, odelta)
    {
#pragma omp target teams distribute parallel for
        for (int k = 0; k < (IN + 1) * HID; k++)
            dw1[k] = 0;
#pragma omp target teams distribute parallel for
        for (int k = 0; k < (HID + 1) * OUT; k++)
            dw2[k] = 0;
        for (int it = 0; it < steps; it++) {
            const int p = (it * 7) % P;
            const double *x = pat + (long)p * (IN + 1);
            /* hidden layer: w1 is [input][hidden] */
#pragma omp target teams distribute parallel for
            for (int j = 0; j <= HID; j++) {
                if (j == HID) {
                    hid[HID] = 1.0; /* bias of the output layer */
                    continue;
                }
                double a = 0;
                for (int i = 0; i <= IN; i++)
                    a += w1[i * HID + j] * x[i];
                hid[j] = sigmoid(a);
            }
            dao_potential_checkpoint();
            /* output layer and its error */
#pragma omp target teams distribute parallel for
            for (int o = 0; o < OUT; o++) {
                double a = 0;
                for (int j = 0; j <= HID; j++)
                    a += w2[j * OUT + o] * hid[j];
                out[o] = sigmoid(a);
                const double t = target[p * OUT + o];
                odelta[o] = out[o] * (1 - out[o]) * (t - out[o]);
            }
            /* hidden units' error */
#pragma omp target teams distribute parallel for
            for (int j = 0; j < HID; j++) {
                double e = 0;
                for (int o = 0; o < OUT; o++)
                    e += odelta[o] * w2[j * OUT + o];
                hdelta[j] = hid[j] * (1 - hid[j]) * e;
            }
            /* weight adjustment, hidden to output, then input to hidden */
#pragma omp target teams distribute parallel for
            for (int k = 0; k < (HID + 1) * OUT; k++) {
                const int j = k / OUT, o = k % OUT;
                dw2[k] = ETA * odelta[o] * hid[j] + MOMENTUM * dw2[k];
                w2[k] += dw2[k];
            }
#pragma omp target teams distribute parallel for
            for (int k = 0; k < (IN + 1) * HID; k++) {
                const int i = k / HID, j = k % HID;
                dw1[k] = ETA * hdelta[j] * x[i] + MOMENTUM * dw1[k];
                w1[k] += dw1[k];
            }
            dao_potential_checkpoint();
            if (it % 8 == 7) {
#pragma omp target update from(odelta, out)
                double e = 0;
                for (int o = 0; o < OUT; o++)
                    e += odelta[o] * odelta[o];
                total += e;
                printf("step %d: pattern %d error %.6e out0 %.6e\n", it + 1, p, e, out[0]);
            }
        }
    }
#pragma omp target exit data map(delete: pat[0:P * (IN + 1)], target[0:P * OUT], dw1[0:(IN + 1) * HID])
    double c1 = 0, c2 = 0;
    for (int k = 0; k < (IN + 1) * HID; k++)
        c1 += w1[k] * (1 + k % 9);
    for (int k = 0; k < (HID + 1) * OUT; k++)
        c2 += w2[k] * (1 + k % 9);
    printf("final: w1 %.6e w2 %.6e errors %.6e\n", c1, c2, total);
    free(pat);
    free(target);
    free(w1);
    free(dw1);
    return 0;
}
