#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::printf("CUDA error: %s (line %d)\n", cudaGetErrorString(err_), __LINE__); return 1; } } while (0)

// Read a buffer `passes` times with 16-byte loads that skip L1 (__ldcg), so repeats hit L2 at best.
__global__ void read_all(const float4* __restrict__ p, size_t n, int passes, float* sink) {
    float s = 0.f;
    for (int k = 0; k < passes; ++k)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
            float4 v = __ldcg(p + i);
            s += v.x + v.y + v.z + v.w;
        }
    if (s == 12345.f) *sink = s;
}

int main() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    const size_t big = size_t(1) << 30;
    float4* buf; float* sink;
    CK(cudaMalloc(&buf, big));
    CK(cudaMalloc(&sink, sizeof(float)));
    CK(cudaMemset(buf, 0, big));
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0)); CK(cudaEventCreate(&t1));
    const size_t sizes[] = {size_t(4) << 20, size_t(8) << 20, size_t(16) << 20, size_t(24) << 20, size_t(32) << 20, size_t(48) << 20, big};
    for (int blocksPerSM : {4, 8}) for (size_t bytes : sizes) {
        size_t n = bytes / sizeof(float4);
        int passes = int(big / bytes);
        read_all<<<p.multiProcessorCount * blocksPerSM, 512>>>(buf, n, passes, sink);
        CK(cudaEventRecord(t0));
        const int reps = 3;
        for (int r = 0; r < reps; ++r) read_all<<<p.multiProcessorCount * blocksPerSM, 512>>>(buf, n, passes, sink);
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaGetLastError());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, t0, t1));
        std::printf("bps %d %5zu MiB: %.0f GB/s\n", blocksPerSM, bytes >> 20, double(bytes) * passes * reps / (ms * 1e-3) / 1e9);
    }
    return 0;
}
