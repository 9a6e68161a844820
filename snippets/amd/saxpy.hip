#include <hip/hip_runtime.h>
// saxpy: y = a*x + y. Compiled for AMDGPU to show scalar and vector instructions, the
// 64-bit EXEC mask of a wave64 wavefront, and the s_waitcnt counters (compiled, not run).
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
