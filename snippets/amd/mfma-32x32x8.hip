#include <hip/hip_runtime.h>
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

// One wavefront multiplies a 32x8 tile of A by an 8x32 tile of B into a 32x32 FP32 tile.
// Each of the 64 lanes holds 4 A values, 4 B values and 16 of the 1,024 results.
__global__ void mfma_32x32x8(const half4* a, const half4* b, float16* c) {
    int lane = threadIdx.x;  // launched with exactly one wavefront of 64 lanes
    float16 acc = {};
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[lane], b[lane], acc, 0, 0, 0);
    c[lane] = acc;
}
