// MemoryPool and PinnedMemoryPool against FakeBackend (malloc'd "device"
// memory with a byte budget and controllable stream completion).
#include "runtime/memory_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <iostream>
#include <random>
#include <thread>
#include <vector>

#include "tests/cpp/fake_backend.h"

namespace kiln::runtime {
namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

StreamHandle stream_id(uintptr_t n) { return reinterpret_cast<StreamHandle>(n); }

class MemoryPoolTest : public ::testing::Test {
 protected:
  testing::FakeBackend fake_;
};

TEST_F(MemoryPoolTest, ReusesAFreedBlock) {
  MemoryPool pool(fake_, 0);
  void* p = pool.allocate(1000, nullptr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(pool.used_bytes(), 1024u);
  EXPECT_EQ(pool.total_bytes(), MemoryPool::kSmallSegmentBytes);
  EXPECT_EQ(fake_.live_bytes(), MemoryPool::kSmallSegmentBytes);
  pool.deallocate(p);
  EXPECT_EQ(pool.used_bytes(), 0u);
  EXPECT_EQ(pool.free_bytes(), MemoryPool::kSmallSegmentBytes);
  EXPECT_EQ(pool.n_free_blocks(), 1u);  // merged back into one chunk
  void* q = pool.allocate(1000, nullptr);
  EXPECT_EQ(q, p);
  EXPECT_EQ(pool.total_bytes(), MemoryPool::kSmallSegmentBytes);
  EXPECT_EQ(pool.used_bytes(), 1024u);
  EXPECT_EQ(fake_.allocate_calls, 1);
  pool.deallocate(q);
}

TEST_F(MemoryPoolTest, RoundsSizesAndServesZeroBytes) {
  MemoryPool pool(fake_, 0);
  void* z1 = pool.allocate(0, nullptr);
  void* z2 = pool.allocate(0, nullptr);
  ASSERT_NE(z1, nullptr);
  ASSERT_NE(z2, nullptr);
  EXPECT_NE(z1, z2);
  EXPECT_EQ(pool.used_bytes(), 1024u);
  void* a = pool.allocate(513, nullptr);
  EXPECT_EQ(pool.used_bytes(), 2048u);
  void* b = pool.allocate(512, nullptr);
  EXPECT_EQ(pool.used_bytes(), 2560u);
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 1024);
  // A large request gets a segment of its own, rounded to kLargeRoundBytes.
  void* big = pool.allocate(3 * MiB + 1, nullptr);
  EXPECT_EQ(pool.total_bytes(), 2 * MiB + 4 * MiB);
  EXPECT_EQ(pool.used_bytes(), 2560u + 3 * MiB + 512);
  for (void* p : {z1, z2, a, b, big}) pool.deallocate(p);
  EXPECT_EQ(pool.used_bytes(), 0u);
}

// Note [Counting free blocks]: only memory that was handed out and came back
// is a free block, as in CuPy's pool; a split of such a block keeps counting.
TEST_F(MemoryPoolTest, FreeBlocksCountOnlyMemoryThatCameBack) {
  MemoryPool pool(fake_, 0);
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  void* a = pool.allocate(1, nullptr);
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  pool.deallocate(a);
  EXPECT_EQ(pool.n_free_blocks(), 1u);  // a merged with the tail: one block
  void* b = pool.allocate(4096, nullptr);  // carved from that block: the rest still counts
  EXPECT_EQ(pool.n_free_blocks(), 1u);
  void* c = pool.allocate(MiB, nullptr);
  pool.deallocate(b);
  EXPECT_EQ(pool.n_free_blocks(), 2u);  // b's hole, and the rest after c
  pool.deallocate(c);
  EXPECT_EQ(pool.n_free_blocks(), 1u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.n_free_blocks(), 0u);
}

// Three adjacent 512 KiB chunks, freed in every order: the segment merges back
// into one free chunk that serves a request larger than any single piece.
class SplitMerge : public MemoryPoolTest, public ::testing::WithParamInterface<std::array<int, 3>> {};

TEST_P(SplitMerge, AdjacentFreeChunksMerge) {
  MemoryPool pool(fake_, 0);
  std::array<void*, 3> p;
  for (auto& x : p) x = pool.allocate(512 * KiB, nullptr);
  EXPECT_EQ(static_cast<char*>(p[1]), static_cast<char*>(p[0]) + 512 * KiB);
  EXPECT_EQ(static_cast<char*>(p[2]), static_cast<char*>(p[1]) + 512 * KiB);
  EXPECT_EQ(pool.n_free_blocks(), 0u);  // the segment's never-used tail is no block
  for (int i : GetParam()) pool.deallocate(p[i]);
  EXPECT_EQ(pool.n_free_blocks(), 1u);
  EXPECT_EQ(pool.free_bytes(), 2 * MiB);
  void* big = pool.allocate(2 * MiB, nullptr);
  EXPECT_EQ(big, p[0]);
  EXPECT_EQ(fake_.allocate_calls, 1);
  pool.deallocate(big);
}

INSTANTIATE_TEST_SUITE_P(AllOrders, SplitMerge,
                         ::testing::Values(std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 1},
                                           std::array<int, 3>{1, 0, 2}, std::array<int, 3>{1, 2, 0},
                                           std::array<int, 3>{2, 0, 1},
                                           std::array<int, 3>{2, 1, 0}));

TEST_F(MemoryPoolTest, PartialMergesServeOnlyWhatFits) {
  MemoryPool pool(fake_, 0);
  void* a = pool.allocate(512 * KiB, nullptr);
  void* b = pool.allocate(512 * KiB, nullptr);
  void* c = pool.allocate(512 * KiB, nullptr);
  // Freeing b alone leaves two separate 512 KiB holes: 1 MiB needs a new segment.
  pool.deallocate(b);
  EXPECT_EQ(pool.n_free_blocks(), 1u);  // b; the never-used tail is no block
  void* d = pool.allocate(1 * MiB, nullptr);
  EXPECT_EQ(fake_.allocate_calls, 2);
  pool.deallocate(d);
  // a + b merge into 1 MiB at a.
  pool.deallocate(a);
  void* e = pool.allocate(1 * MiB, nullptr);
  EXPECT_EQ(e, a);
  // c merges with the segment's tail: 1 MiB at c.
  pool.deallocate(c);
  void* f = pool.allocate(1 * MiB, nullptr);
  EXPECT_EQ(f, c);
  EXPECT_EQ(fake_.allocate_calls, 2);
  pool.deallocate(e);
  pool.deallocate(f);
}

TEST_F(MemoryPoolTest, BestFitPicksTheSmallestHole) {
  MemoryPool pool(fake_, 0);
  std::vector<void*> p;
  for (int i = 0; i < 6; ++i) p.push_back(pool.allocate(i % 2 ? 1024 : 4096, nullptr));
  pool.deallocate(p[0]);  // 4 KiB hole
  pool.deallocate(p[3]);  // 1 KiB hole (p[2], p[4] still in use)
  void* q = pool.allocate(1000, nullptr);
  EXPECT_EQ(q, p[3]);
  void* r = pool.allocate(2000, nullptr);
  EXPECT_EQ(r, p[0]);
}

TEST_F(MemoryPoolTest, CrossStreamReuseWaitsForTheOldStream) {
  MemoryPool pool(fake_, 0);
  StreamHandle s1 = stream_id(0x10), s2 = stream_id(0x20), s3 = stream_id(0x30);
  void* p = pool.allocate(1000, s1);
  pool.deallocate(p);
  fake_.set_stream_done(s1, false);
  fake_.set_stream_done(s2, false);

  // The same stream reuses at once, busy or not.
  void* again = pool.allocate(1000, s1);
  EXPECT_EQ(again, p);
  pool.deallocate(again);

  // Another stream may not take s1's chunk while s1 is busy.
  void* q = pool.allocate(1000, s2);
  EXPECT_NE(q, p);
  EXPECT_EQ(fake_.allocate_calls, 2);
  pool.deallocate(q);

  // Once s1 is done (s2 still busy), a third stream takes s1's chunk.
  fake_.set_stream_done(s1, true);
  void* r = pool.allocate(1000, s3);
  EXPECT_EQ(r, p);
  EXPECT_EQ(fake_.allocate_calls, 2);
  pool.deallocate(r);
}

// A destroyed stream must never be queried again: its chunks join the
// default stream (a bug caught on the GPU, where cuStreamQuery on a destroyed
// stream crashed the out-of-memory path).
TEST_F(MemoryPoolTest, ForgottenStreamIsNeverQueried) {
  MemoryPool pool(fake_, 0);
  StreamHandle dead = stream_id(0x40), live = stream_id(0x50);
  void* a = pool.allocate(1000, dead);
  void* b = pool.allocate(1000, dead);
  void* held = pool.allocate(1000, dead);
  pool.deallocate(a);
  pool.deallocate(b);
  pool.forget_stream(dead);
  fake_.set_stream_done(dead, false);  // any query of it would now refuse reuse
  EXPECT_EQ(pool.n_free_blocks(), 1u);  // a+b merged; the never-used tail after held is no block
  void* c = pool.allocate(2000, nullptr);  // the merged a+b chunk, on the default stream
  EXPECT_EQ(c, a);
  EXPECT_EQ(fake_.allocate_calls, 1);
  pool.deallocate(held);  // allocated on the dead stream: lands on the default stream
  void* d = pool.allocate(1000, live);  // other stream: default stream is done
  EXPECT_EQ(d, held);
  pool.deallocate(c);
  pool.deallocate(d);
}

TEST_F(MemoryPoolTest, LimitIsEnforcedAndReported) {
  MemoryPool pool(fake_, 0);
  EXPECT_EQ(pool.get_limit(), 0u);
  pool.set_limit(4 * MiB);
  EXPECT_EQ(pool.get_limit(), 4 * MiB);
  void* p = pool.allocate(4 * MiB, nullptr);
  try {
    pool.allocate(1000, nullptr);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested_bytes, 1000u);
    std::string what = e.what();
    EXPECT_NE(what.find("1000 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 4194304 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("4194304 in use"), std::string::npos) << what;
  }
  EXPECT_EQ(fake_.synchronize_calls, 1);  // it retried once after a sync
  EXPECT_EQ(fake_.allocate_calls, 1);     // the backend was never asked
  pool.deallocate(p);
  void* q = pool.allocate(1000, nullptr);  // served from the cached segment
  EXPECT_EQ(q, p);
  pool.deallocate(q);

  // Under a limit smaller than a small segment, small requests still fit.
  MemoryPool small(fake_, 0);
  small.set_limit(1 * MiB);
  void* s = small.allocate(1000, nullptr);
  EXPECT_LE(small.total_bytes(), 1 * MiB);
  EXPECT_THROW(small.allocate(2 * MiB, nullptr), OutOfMemory);
  small.deallocate(s);
}

TEST_F(MemoryPoolTest, OutOfMemoryRetryReleasesCachedSegments) {
  fake_.set_budget(8 * MiB);
  MemoryPool pool(fake_, 0);
  void* a = pool.allocate(4 * MiB, nullptr);
  void* b = pool.allocate(4 * MiB, nullptr);
  EXPECT_THROW(pool.allocate(1000, nullptr), OutOfMemory);
  EXPECT_EQ(fake_.synchronize_calls, 1);
  EXPECT_EQ(fake_.failed_allocations, 2);  // first try and the retry
  // Still usable: a freed block serves smaller requests.
  pool.deallocate(b);
  void* c = pool.allocate(1000, nullptr);
  EXPECT_EQ(c, b);
  pool.deallocate(c);
  pool.deallocate(a);
  // Two free 4 MiB segments cannot hold 6 MiB: the backend refuses, the pool
  // syncs, returns both segments and the retry succeeds.
  EXPECT_EQ(pool.total_bytes(), 8 * MiB);
  void* d = pool.allocate(6 * MiB, nullptr);
  EXPECT_NE(d, nullptr);
  EXPECT_EQ(fake_.synchronize_calls, 2);
  EXPECT_EQ(fake_.failed_allocations, 3);
  EXPECT_EQ(pool.total_bytes(), 6 * MiB);
  EXPECT_EQ(fake_.live_bytes(), 6 * MiB);
  pool.deallocate(d);
}

TEST_F(MemoryPoolTest, OutOfMemoryRetryUsesBusyStreamsChunksAfterSync) {
  fake_.set_budget(2 * MiB);
  MemoryPool pool(fake_, 0);
  StreamHandle s1 = stream_id(1), s2 = stream_id(2);
  void* p = pool.allocate(1000, s1);
  pool.deallocate(p);
  fake_.set_stream_done(s1, false);
  // s2 cannot take s1's chunk and the backend is full; after the device sync
  // every stream is idle, so the retry reuses the chunk.
  void* q = pool.allocate(1000, s2);
  EXPECT_EQ(q, p);
  EXPECT_EQ(fake_.synchronize_calls, 1);
  pool.deallocate(q);
}

TEST_F(MemoryPoolTest, FreeAllBlocksReturnsWhollyFreeSegments) {
  MemoryPool pool(fake_, 0);
  void* small = pool.allocate(1000, nullptr);
  void* large = pool.allocate(3 * MiB, nullptr);
  EXPECT_EQ(fake_.live_bytes(), 6 * MiB);
  pool.deallocate(large);
  pool.free_all_blocks();
  EXPECT_EQ(fake_.live_bytes(), 2 * MiB);  // the small segment is still in use
  EXPECT_EQ(pool.total_bytes(), 2 * MiB);
  EXPECT_EQ(pool.n_free_blocks(), 0u);  // the small segment's never-used tail is no block
  pool.deallocate(small);
  pool.free_all_blocks();
  EXPECT_EQ(fake_.live_bytes(), 0u);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(pool.total_bytes(), 0u);
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  void* again = pool.allocate(1000, nullptr);  // still works
  EXPECT_EQ(fake_.live_bytes(), 2 * MiB);
  pool.deallocate(again);
}

TEST_F(MemoryPoolTest, DestructorReturnsEverySegment) {
  {
    MemoryPool pool(fake_, 0);
    pool.allocate(1000, nullptr);  // never freed
    void* p = pool.allocate(5 * MiB, nullptr);
    pool.deallocate(p);
    EXPECT_EQ(fake_.live_allocations(), 2u);
  }
  EXPECT_EQ(fake_.live_bytes(), 0u);
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

TEST_F(MemoryPoolTest, DeallocateOfUnknownPointerThrows) {
  MemoryPool pool(fake_, 0);
  int local = 0;
  EXPECT_THROW(pool.deallocate(&local), InvalidArgument);
  void* p = pool.allocate(100, nullptr);
  EXPECT_THROW(pool.deallocate(static_cast<char*>(p) + 1), InvalidArgument);
  pool.deallocate(p);
  EXPECT_THROW(pool.deallocate(p), InvalidArgument);  // double free
  EXPECT_NO_THROW(pool.deallocate(nullptr));
  EXPECT_EQ(pool.used_bytes(), 0u);
}

TEST_F(MemoryPoolTest, ConcurrentAllocateDeallocate) {
  MemoryPool pool(fake_, 0);
  auto worker = [&pool](int seed) {
    std::mt19937 rng(seed);
    const size_t sizes[] = {1, 700, 4096, 100000, 1 * MiB + 3};
    std::vector<std::pair<unsigned char*, size_t>> live;
    for (int i = 0; i < 20000; ++i) {
      if (live.size() < 16 && (live.empty() || rng() % 2)) {
        size_t n = sizes[rng() % 5];
        auto* p = static_cast<unsigned char*>(pool.allocate(n, stream_id(seed)));
        std::memset(p, seed, std::min<size_t>(n, 64));
        live.emplace_back(p, n);
      } else {
        size_t k = rng() % live.size();
        auto [p, n] = live[k];
        for (size_t j = 0; j < std::min<size_t>(n, 64); ++j) {
          if (p[j] != seed) {
            ADD_FAILURE() << "chunk overwritten by another thread";
            return;
          }
        }
        pool.deallocate(p);
        live[k] = live.back();
        live.pop_back();
      }
    }
    for (auto [p, n] : live) pool.deallocate(p);
  };
  std::thread t1(worker, 1), t2(worker, 2);
  t1.join();
  t2.join();
  EXPECT_EQ(pool.used_bytes(), 0u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), 0u);
  EXPECT_EQ(fake_.live_bytes(), 0u);
}

// Prints the warm cost (~50 ns per pair, -O2). In optimized builds (NDEBUG)
// it fails over 10 us, which TSan builds (~1.7 us) stay well under; debug +
// ASan builds (~3.5 us) only print.
TEST_F(MemoryPoolTest, WarmAllocateDeallocateIsFast) {
  MemoryPool pool(fake_, 0);
  std::vector<void*> keep;
  for (int i = 0; i < 100; ++i) keep.push_back(pool.allocate(512 * (i % 7 + 1), nullptr));
  for (int i = 0; i < 100; i += 2) pool.deallocate(keep[i]);
  constexpr int kIters = 200000;
  int calls_before = fake_.allocate_calls;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kIters; ++i) {
    void* p = pool.allocate(1000 + (i & 3) * 512, nullptr);
    pool.deallocate(p);
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / kIters;
  std::cout << "[ pool     ] warm allocate+deallocate: " << ns << " ns per pair\n";
  EXPECT_EQ(fake_.allocate_calls, calls_before);
#ifdef NDEBUG
  EXPECT_LT(ns, 10000.0);
#endif
  for (int i = 1; i < 100; i += 2) pool.deallocate(keep[i]);
}

TEST(DefaultMemoryPool, IsOnePerDevice) {
  MemoryPool& a = default_memory_pool(0);
  EXPECT_EQ(&a, &default_memory_pool(0));
  EXPECT_THROW(default_memory_pool(-1), InvalidArgument);
  EXPECT_THROW(default_memory_pool(1 << 20), InvalidArgument);
}

// --- PinnedMemoryPool ---

TEST_F(MemoryPoolTest, PinnedReusesBlocksOfTheSameRoundedSize) {
  PinnedMemoryPool pool(fake_);
  void* p = pool.allocate(1000);
  pool.deallocate(p);
  EXPECT_EQ(pool.n_free_blocks(), 1u);
  void* q = pool.allocate(600);  // also 1024 after rounding
  EXPECT_EQ(q, p);
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  void* r = pool.allocate(1025);  // 1536: a new block
  EXPECT_NE(r, p);
  EXPECT_EQ(fake_.allocate_calls, 2);
  pool.deallocate(q);
  pool.deallocate(r);
  EXPECT_EQ(pool.n_free_blocks(), 2u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  EXPECT_EQ(fake_.live_bytes(), 0u);
  int local;
  EXPECT_THROW(pool.deallocate(&local), InvalidArgument);
}

TEST_F(MemoryPoolTest, PinnedOutOfMemoryReleasesCacheAndRetries) {
  fake_.set_budget(4096);
  PinnedMemoryPool pool(fake_);
  void* a = pool.allocate(2048);
  void* b = pool.allocate(2048);
  EXPECT_THROW(pool.allocate(512), OutOfMemory);
  pool.deallocate(a);
  pool.deallocate(b);
  void* c = pool.allocate(4096);  // needs the cached blocks released first
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(pool.n_free_blocks(), 0u);
  EXPECT_EQ(fake_.live_bytes(), 4096u);
  pool.deallocate(c);
}

}  // namespace
}  // namespace kiln::runtime
