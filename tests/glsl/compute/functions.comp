// Function calls: in/out/inout parameters, overloads, struct and array parameters and returns,
// multiple return paths, nested calls, const globals and a lookup table.
// For each i (N = 128):
//   binding 0: In { uvec2 inp[]; }   binding 1: Out { uint outp[]; } (4 uints per i, output):
//     outp[4i+0] = gcd(x, y) when y != 0, else mix3(x, acc) (overloaded helper, acc = a hash via inout)
//     outp[4i+1] = floor(sqrt(x)) (binary search)
//     outp[4i+2] = x / max(y, 1), outp[4i+3] = x % max(y, 1) (divmod with out parameters / struct return)
// Dispatch: local_size 32, vkCmdDispatch(4, 1, 1).
#version 450

layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uvec2 inp[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint outp[]; };

const uint TABLE[8] = uint[8](2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u);

struct Pair {
    uint q;
    uint r;
};

uint gcd(uint a, uint b)
{
    while (b != 0u) {
        uint t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint isqrt(uint x)
{
    if (x < 2u) {
        return x;
    }
    uint lo = 1u, hi = min(x, 65535u);
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (mid * mid <= x) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

void divmod(uint a, uint b, out uint q, out uint r)
{
    q = a / b;
    r = a - q * b;
}

Pair divmod(uint a, uint b)
{
    Pair p;
    divmod(a, b, p.q, p.r);
    return p;
}

void accumulate(inout uint acc, uint v[4])
{
    for (int i = 0; i < 4; ++i) {
        acc = acc * 31u + v[i];
    }
}

uint mix3(uint a)
{
    return a * TABLE[a % 8u];
}

uint mix3(uint a, uint b)
{
    return mix3(a) ^ mix3(b);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uvec2 v = inp[i];
    uint g = gcd(v.x, v.y);
    Pair p = divmod(v.x, max(v.y, 1u));
    uint acc = 7u;
    accumulate(acc, uint[4](g, p.q, p.r, isqrt(v.x)));
    outp[4 * i + 0] = v.y == 0u ? mix3(v.x, acc) : g;
    outp[4 * i + 1] = isqrt(v.x);
    outp[4 * i + 2] = p.q;
    outp[4 * i + 3] = p.r;
}
