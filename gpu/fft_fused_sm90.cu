/* fft_fused_sm90: the fused kernels that need sm_90 (see fft_fused_internal.cuh for the
 * layout they share): frames streamed into one block an SM by the copy engine, and one
 * transform across a thread-block cluster. Built for an older architecture their bodies are
 * empty and fused_sm90_ok() says so. */
#include "fft_fused_internal.cuh"

namespace fused {
namespace {

/* ---- one block an SM, frames streamed in by the copy engine (sm_90) ----
 * The one-block kernel at N = 2^14 holds a whole frame on an SM (128 KB of shared memory,
 * the registers of 512 threads), so an SM alternates between loading, computing and
 * storing, and its loads are 8-byte LDGs that fill the load queue. Here a persistent block
 * loops over frames g = blockIdx.x, + gridDim.x, ...: the frame arrives in shared memory by
 * bulk copies (cp.async.bulk, counted on an mbarrier), pass 0 reads it from there (the bit
 * reversal is the read pattern, lanes on consecutive points: no bank conflict), and as soon
 * as the last exchange has been read the next frame's copy starts, so it flies while the
 * last pass computes and stores. It pays where memory is fast for the SMs: at 2^26 points a
 * run it reached 0.85 of copy speed on an H200 (the one-block kernel 0.78), but 0.90 on an
 * H100 (one-block 0.96), where pass 0's extra shared-memory read costs more than the
 * overlap wins (fused_stream_pays() chooses). */
template <int L, int RL> struct SCfg {
    using C = Cfg<L, RL, 1, K_ROW, true>;
    static constexpr int CHUNKS = 8; /* bulk copies a frame */
    static constexpr unsigned FRAME_BYTES = (1u << L) * 8u, CHUNK_BYTES = FRAME_BYTES / CHUNKS;
    static constexpr size_t BAR_OFF = (size_t)C::FS2 * sizeof(float2); /* the mbarrier after the points */
    static constexpr size_t SMEM = BAR_OFF + 16;
    static_assert(CHUNK_BYTES % 16 == 0 && BAR_OFF % 8 == 0, "bulk copy and mbarrier alignment");
};

template <int L, int RL>
__global__ void __launch_bounds__(Cfg<L, RL, 1, K_ROW, true>::THREADS, 1) stream_c2c_kernel(const FArgs A)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using K = SCfg<L, RL>;
    using C = typename K::C;
    constexpr int R = C::R;
    extern __shared__ __align__(128) float smem[];
    float2 *s_c = reinterpret_cast<float2 *>(smem);
    auto smem_addr = [](const void *p) { return (unsigned)__cvta_generic_to_shared(p); };
    const unsigned bar = smem_addr(reinterpret_cast<char *>(smem) + K::BAR_OFF);
    const unsigned tid = threadIdx.x;
    /* thread 0: the copies of frame g, completing on the mbarrier's current phase */
    auto fetch = [&](size_t g) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(K::FRAME_BYTES)
                     : "memory");
        const char *src = reinterpret_cast<const char *>(A.in + (g << L));
        for (int c = 0; c < K::CHUNKS; c++)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(smem_addr(s_c) + c * K::CHUNK_BYTES), "l"(src + (size_t)c * K::CHUNK_BYTES),
                         "r"(K::CHUNK_BYTES), "r"(bar)
                         : "memory");
    };
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* the copy engine sees it */
        if (blockIdx.x < A.batch)
            fetch(blockIdx.x);
    }
    __syncthreads();
    unsigned phase = 0;
    for (size_t g = blockIdx.x; g < A.batch; g += gridDim.x) {
        asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                     "@!p bra WAIT;\n\t}" ::"r"(bar), "r"(phase)
                     : "memory");
        phase ^= 1u;
        float2 v[R];
        {
            const unsigned ti = scatter<L, RL, 0>(tid);
            const float2 *src = s_c + ti;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                v[e] = src[ELEM<L, RL, 0, e>];
            });
            levels<L, RL, 0>(v, ti, A.tw, A.tws, A.inverse, ti);
        }
        __syncthreads(); /* pass 0 has read the frame before the exchange overwrites it */
        const size_t next = g + gridDim.x;
        exchange_passes<L, RL, 1, K_ROW, true, O_C2C, 1>(v, smem, smem, tid, A, [&]() {
            /* every thread's shared-memory accesses are done and ordered before the copy
             * engine writes there */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            __syncthreads();
            if (tid == 0 && next < A.batch)
                fetch(next);
        });
        const unsigned pt = rev_var<L>(scatter<L, RL, C::NP - 1>(tid));
        float2 *dst = A.out + (g << L) + pt;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            dst[RELEM<L, RL, C::NP - 1, e>] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
#endif
}

/* SMs of the current device (one device per process) */
int sm_count()
{
    static std::atomic<int> n{0};
    if (n == 0) {
        int dev = 0, v = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && v > 0)
            n = v;
        else
            (void)cudaGetLastError();
    }
    return n;
}

template <int L, int RL> int launch_stream(const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    static_assert(SCfg<L, RL>::C::NP >= 2, "the next frame's copy starts in the last exchange");
    static std::atomic<bool> raised{false};
    const size_t nsm = (size_t)(sm_count() > 0 ? sm_count() : 1);
    return launch_kernel(stream_c2c_kernel<L, RL>, raised, SCfg<L, RL>::SMEM, SCfg<L, RL>::C::THREADS,
                         A.batch < nsm ? A.batch : nsm, A, st, ei, "stream_c2c_kernel");
}

/* ---- one pass across a thread-block cluster (distributed shared memory) ----
 * N = N1 N2 = 2^(L1+L2), a cluster of C = 2^LC blocks a transform, each block holding N/C
 * points. Block c does the N1-point FFTs of the columns n2 in [c N2/C, (c+1) N2/C) of x
 * viewed as N1 x N2 (K_COL1's passes, FPB1 = N2/C columns), multiplies W_N^(n2 k1), and
 * writes Y[k1][n2] into the shared memory of block k1 / (N1/C), row k1 mod (N1/C). After a
 * cluster barrier each block does the N2-point FFTs of its N1/C rows (K_ROW2COL's passes)
 * and stores X[k1 + N1 k2]. Device memory is read once and written once, as in the one-pass
 * kernel; the four-step's transpose crosses the cluster instead. */
template <int L1, int L2, int LC> struct CCfg {
    static constexpr int RL = 4, FPB1 = 1 << (L2 - LC), FPB2 = 1 << (L1 - LC);
    using C1 = Cfg<L1, RL, FPB1, K_COL1>;
    using C2 = Cfg<L2, RL, FPB2, K_ROW2COL>;
    static_assert(C1::THREADS == C2::THREADS, "both phases use every thread");
    static constexpr int THREADS = C1::THREADS, MINB = THREADS >= 1024 ? 1 : 1024 / THREADS;
    /* rows of the second phase; with T2 < 16 threads a row a half warp reads two rows, which
     * the pad puts on different banks */
    static constexpr int RS = (1 << L2) + (C2::T < 16 ? C2::T : 0);
    static constexpr size_t ROWS = (size_t)FPB2 * RS * sizeof(float2);
    static constexpr size_t SMEM = C1::SMEM > C2::SMEM ? (C1::SMEM > ROWS ? C1::SMEM : ROWS)
                                                       : (C2::SMEM > ROWS ? C2::SMEM : ROWS);
};

/* Launched with a cluster of 2^LC blocks (launch_kernel). Clusters need sm_90: built for an
 * older architecture the body is empty and fused_sm90_ok() says so, which keeps the
 * four-step for these sizes. */
template <int L1, int L2, int LC>
__global__ void __launch_bounds__(CCfg<L1, L2, LC>::THREADS, CCfg<L1, L2, LC>::MINB)
    cluster_fft_kernel(const FArgs A)
{
    using K = CCfg<L1, L2, LC>;
    constexpr int RL = K::RL, R = 1 << RL;
    constexpr int NP1 = K::C1::NP, NP2 = K::C2::NP;
    static_assert(NP1 >= 1 && NP2 >= 1 && R == 16, "16 points a thread, both phases");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    constexpr int L = L1 + L2;
    extern __shared__ float smem[];
    float2 *rows = reinterpret_cast<float2 *>(smem);
    cg::cluster_group cl = cg::this_cluster();
    const unsigned tid = threadIdx.x, c = cl.block_rank();
    const size_t b = blockIdx.x >> LC;
    float2 v[R];

    /* phase 1: columns (lanes across columns), A.tws for N1 */
    {
        unsigned f, t;
        thread_ft<K::C1::T, K::FPB1, true>(tid, f, t);
        const unsigned ti = scatter<L1, RL, 0>(t);
        const float2 *src = A.in + (b << L) + (c << (L2 - LC)) + f;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[(size_t)(ti | ELEM<L1, RL, 0, e>) << L2];
        });
        levels<L1, RL, 0>(v, ti, A.tw, A.tws, A.inverse, ti);
    }
    exchange_passes<L1, RL, K::FPB1, K_COL1, false, O_C2C, 1>(v, smem, smem + K::FPB1 * K::C1::FS, tid, A);
    cl.sync(); /* every block is done with its phase-1 shared memory */
    {
        unsigned f, t;
        thread_ft<K::C1::T, K::FPB1, true>(tid, f, t);
        const unsigned pt = rev_var<L1>(scatter<L1, RL, NP1 - 1>(t));
        const unsigned n2 = (c << (L2 - LC)) + f;
        put_twiddled<L1, RL, NP1 - 1>(v, A, n2, pt, [&](auto E, float2 x) {
            const unsigned k1 = pt | RELEM<L1, RL, NP1 - 1, SP_CI(E)>;
            float2 *dst = cl.map_shared_rank(rows, (int)(k1 >> (L1 - LC)));
            dst[(k1 & (K::FPB2 - 1)) * K::RS + n2] = x;
        });
    }
    cl.sync(); /* Y is in place */

    /* phase 2: rows of this block (lanes along a row, then across rows) */
    FArgs A2 = A;
    A2.tws = A.tws + L1 - L2;
    {
        unsigned f, t;
        thread_ft<K::C2::T, K::FPB2, false>(tid, f, t);
        const unsigned ti = scatter<L2, RL, 0>(t);
        const float2 *src = rows + f * K::RS + ti;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[ELEM<L2, RL, 0, e>];
        });
        levels<L2, RL, 0>(v, ti, A2.tw, A2.tws, A2.inverse, ti);
    }
    __syncthreads(); /* the rows are read before the exchange reuses the memory */
    exchange_passes<L2, RL, K::FPB2, K_ROW2COL, false, O_C2C, 1>(v, smem, smem + K::FPB2 * K::C2::FS, tid, A2);
    {
        unsigned f, t;
        thread_ft<K::C2::T, K::FPB2, K::C2::modeF(NP2 - 1)>(tid, f, t);
        const unsigned pt = rev_var<L2>(scatter<L2, RL, NP2 - 1>(t));
        float2 *dst = A.out + (b << L) + (c << (L1 - LC)) + f;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            const unsigned k2 = pt | RELEM<L2, RL, NP2 - 1, e>;
            dst[(size_t)k2 << L1] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
#endif
}

template <int L1, int L2, int LC>
int launch_cluster(const FArgs &base, cudaStream_t st, sp_errinfo *ei)
{
    using K = CCfg<L1, L2, LC>;
    FArgs A = base;
    A.log2_full = L1 + L2;
    A.full_shift = base.tws;
    A.tws = base.tws + L2; /* log2 M - L1 */
    static std::atomic<bool> raised{false};
    return launch_kernel(cluster_fft_kernel<L1, L2, LC>, raised, K::SMEM, K::THREADS, A.batch << LC, A, st,
                         ei, "cluster_fft_kernel", 1u << LC);
}

} // namespace

int launch_stream_L(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    switch (L) {
    case 14: return launch_stream<14, 5>(A, st, ei);
    default: break;
    }
    return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no streamed kernel for 2^%u points", L);
}

/* Clusters of 8 blocks (the portable maximum), measured on an H100 against 4 (and 2 at
 * 2^14, where the one-block kernel stays faster). */
int launch_cluster_L(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    switch (L) {
    case 15: return launch_cluster<7, 8, 3>(A, st, ei);
    case 16: return launch_cluster<8, 8, 3>(A, st, ei);
    case 17: return launch_cluster<8, 9, 3>(A, st, ei);
    default: break;
    }
    return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no cluster kernel for 2^%u points", L);
}

} // namespace fused

using namespace fused;

extern "C" int fused_sm90_ok(void)
{
    /* the architecture of the code chosen for this device: clusters from sm_90 */
    static std::atomic<int> ok{-1};
    if (ok < 0) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, cluster_fft_kernel<8, 8, 3>) == cudaSuccess)
            ok = fa.binaryVersion >= 90;
        else
            (void)cudaGetLastError(); /* not sticky: no usable code, no clusters */
        if (ok < 0)
            ok = 0;
    }
    return ok;
}

extern "C" int fused_stream_pays(void)
{
    /* peak DRAM bytes per SM cycle, from the datasheets: H100 SXM 3.35 TB/s over 132 SMs at
     * 1.98 GHz = 12.8, H200 4.8 TB/s = 18.4 */
    static std::atomic<int> pays{-1};
    if (pays < 0) {
        int dev = 0, mem_khz = 0, bus_bits = 0, sm_khz = 0;
        const int sms = sm_count();
        int v = 0;
        if (fused_sm90_ok() && sms > 0 && cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) == cudaSuccess && sm_khz > 0) {
            const double bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0; /* double data rate */
            v = bytes_per_s / ((double)sms * sm_khz * 1e3) >= 16.0;
        } else {
            (void)cudaGetLastError();
        }
        pays = v;
    }
    return pays;
}
