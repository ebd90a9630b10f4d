// Control flow: switch with fall-through and default, nested loops with break/continue,
// do-while, early return, ternaries, short-circuit && / ||, discard-free structured flow.
// For each i (N = 256), with x = inp[i] (int):
//   binding 0: In { int inp[]; }   binding 1: Out { int outp[]; } (output)
//   outp[i] = f(x) where f is defined by the code below (Collatz-style step counts, a switch
//   classification and a bounded nested search); the interpreter compares it with a Python model.
// Dispatch: local_size 64, vkCmdDispatch(4, 1, 1).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer In { int inp[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { int outp[]; };

int collatzSteps(int x)
{
    if (x <= 0) {
        return -1;
    }
    int steps = 0;
    do {
        if ((x & 1) == 0) {
            x >>= 1;
        } else {
            x = 3 * x + 1;
        }
        ++steps;
    } while (x != 1 && steps < 1000);
    return steps;
}

int classify(int x)
{
    int r = 0;
    switch (x & 7) {
    case 0:
        r += 100;
        // fall through
    case 1:
    case 2:
        r += 10;
        break;
    case 5:
        r = -5;
        break;
    default:
        r = x & 7;
    }
    return r;
}

int search(int x)
{
    int found = 0;
    for (int a = 1; a < 16; ++a) {
        if (a % 3 == 0) {
            continue;
        }
        for (int b = a; b < 16; ++b) {
            if (a * b > x) {
                break;
            }
            if ((a * b) % 7 == 0 || (a + b == 13 && b > 9)) {
                found += a * 16 + b;
            }
        }
        if (found > 4000) {
            break;
        }
    }
    return found;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int x = inp[i];
    if (x == 12345) {
        outp[i] = 0;
        return;
    }
    int c = collatzSteps(abs(x) % 1000 + 1);
    int k = classify(x);
    int s = (x > 0 && (x % 2 == 0)) ? search(x % 200) : -search(-x % 200);
    outp[i] = c * 1000000 + k * 1000 + s;
}
