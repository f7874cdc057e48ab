// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'permute_random_pass0': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_pass0(const std::vector<float> &a, std::vector<float> &b, const std::vector<std::uint16_t> &s0, const std::vector<std::uint16_t> &d0) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 256; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> buf(4096); // shared, per block
    std::vector<float> v(NT * 4); // local, per thread
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = a[bx * 4096 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 4 + k] = buf[static_cast<Index>(s0[bx * 4096 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d0[bx * 4096 + j[t]])] = v[t * 4 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 4096 + j[t]] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_random_pass1': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_pass1(std::vector<float> &b, const std::vector<std::uint16_t> &s1, const std::vector<std::uint16_t> &d1) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 512; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> buf(2048); // shared, per block
    std::vector<float> v(NT * 2); // local, per thread
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[j[t] / 8 * 4096 + bx * 8 + j[t] % 8];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 2 + k] = buf[static_cast<Index>(s1[bx * 2048 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d1[bx * 2048 + j[t]])] = v[t * 2 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[j[t] / 8 * 4096 + bx * 8 + j[t] % 8] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_random_pass2': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_pass2(std::vector<float> &b, const std::vector<std::uint16_t> &s2, const std::vector<std::uint16_t> &d2) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 256; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> buf(4096); // shared, per block
    std::vector<float> v(NT * 4); // local, per thread
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[bx * 4096 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 4 + k] = buf[static_cast<Index>(s2[bx * 4096 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d2[bx * 4096 + j[t]])] = v[t * 4 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 4096 + j[t]] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_bitrev_pass0': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_bitrev_pass0(const std::vector<std::uint32_t> &a, std::vector<std::uint32_t> &b, const std::vector<std::uint16_t> &s0, const std::vector<std::uint16_t> &d0) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 256; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> buf(4096); // shared, per block
    std::vector<std::uint32_t> v(NT * 4); // local, per thread
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = a[bx * 4096 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 4 + k] = buf[static_cast<Index>(s0[bx * 4096 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d0[bx * 4096 + j[t]])] = v[t * 4 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 4096 + j[t]] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_bitrev_pass1': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_bitrev_pass1(std::vector<std::uint32_t> &b, const std::vector<std::uint16_t> &s1, const std::vector<std::uint16_t> &d1) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 512; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> buf(2048); // shared, per block
    std::vector<std::uint32_t> v(NT * 2); // local, per thread
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[j[t] / 8 * 4096 + bx * 8 + j[t] % 8];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 2 + k] = buf[static_cast<Index>(s1[bx * 2048 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d1[bx * 2048 + j[t]])] = v[t * 2 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[j[t] / 8 * 4096 + bx * 8 + j[t] % 8] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_bitrev_pass2': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_bitrev_pass2(std::vector<std::uint32_t> &b, const std::vector<std::uint16_t> &s2, const std::vector<std::uint16_t> &d2) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 256; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> buf(4096); // shared, per block
    std::vector<std::uint32_t> v(NT * 4); // local, per thread
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[bx * 4096 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 4 + k] = buf[static_cast<Index>(s2[bx * 4096 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d2[bx * 4096 + j[t]])] = v[t * 4 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 4096 + j[t]] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_random_f64_pass0': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_f64_pass0(const std::vector<double> &a, std::vector<double> &b, const std::vector<std::uint16_t> &s0, const std::vector<std::uint16_t> &d0) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 512; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<double> buf(2048); // shared, per block
    std::vector<double> v(NT * 2); // local, per thread
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = a[bx * 2048 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 2 + k] = buf[static_cast<Index>(s0[bx * 2048 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d0[bx * 2048 + j[t]])] = v[t * 2 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 2048 + j[t]] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_random_f64_pass1': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_f64_pass1(std::vector<double> &b, const std::vector<std::uint16_t> &s1, const std::vector<std::uint16_t> &d1) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 512; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<double> buf(2048); // shared, per block
    std::vector<double> v(NT * 2); // local, per thread
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[j[t] / 4 * 2048 + bx * 4 + j[t] % 4];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 2 + k] = buf[static_cast<Index>(s1[bx * 2048 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d1[bx * 2048 + j[t]])] = v[t * 2 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[j[t] / 4 * 2048 + bx * 4 + j[t] % 4] = buf[j[t]];
      }
    }
  }
}

// CPU reference of 'permute_random_f64_pass2': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_random_f64_pass2(std::vector<double> &b, const std::vector<std::uint16_t> &s2, const std::vector<std::uint16_t> &d2) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 512; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<double> buf(2048); // shared, per block
    std::vector<double> v(NT * 2); // local, per thread
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[j[t]] = b[bx * 2048 + j[t]];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        v[t * 2 + k] = buf[static_cast<Index>(s2[bx * 2048 + j[t]])];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        buf[static_cast<Index>(d2[bx * 2048 + j[t]])] = v[t * 2 + k];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 2; k < k_end; k += 1) {
      std::vector<Index> j(NT);
      for (Index t = 0; t < NT; ++t) {
        j[t] = t + k * 1024;
      }
      for (Index t = 0; t < NT; ++t) {
        b[bx * 2048 + j[t]] = buf[j[t]];
      }
    }
  }
}

// Runs launch 'permute_random' (permute_random_pass0, permute_random_pass1, permute_random_pass2) on fresh random inputs (outputs poisoned with 0xFF bytes
// first), checks every element it writes against the stages' CPU references run in order, and
// times the whole launch with CUDA events.
static bool run_permute_random(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[N], read: random.
  std::vector<float> a_img(1048576); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < 1048576; ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  // 'b': global f32[N], read and written: random.
  std::vector<float> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  for (long long I = 0; I < 1048576; ++I)
    b_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  // 's0' holds hmm_src(P, pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 0.
  std::vector<std::uint16_t> s0_ref;
  if (!bw_read_table_0(s0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 0 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd0' holds hmm_dst(P, pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 1.
  std::vector<std::uint16_t> d0_ref;
  if (!bw_read_table_1(d0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 1 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's1' holds hmm_src(P, pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 2.
  std::vector<std::uint16_t> s1_ref;
  if (!bw_read_table_2(s1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 2 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd1' holds hmm_dst(P, pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 3.
  std::vector<std::uint16_t> d1_ref;
  if (!bw_read_table_3(d1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 3 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's2' holds hmm_src(P, pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 4.
  std::vector<std::uint16_t> s2_ref;
  if (!bw_read_table_4(s2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 4 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd2' holds hmm_dst(P, pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 5.
  std::vector<std::uint16_t> d2_ref;
  if (!bw_read_table_5(d2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 5 (side file '%s')\n", bw_table_file);
    return false;
  }
  BANKWISE_CHECK(launch_permute_random(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_random_pass0(a_ref, b_ref, s0_ref, d0_ref);
  reference_permute_random_pass1(b_ref, s1_ref, d1_ref);
  reference_permute_random_pass2(b_ref, s2_ref, d2_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_random: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_random(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_random(a, 1048576, b, 1048576, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(a));
  BANKWISE_CHECK(cudaFree(b));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_random\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs launch 'permute_bitrev' (permute_bitrev_pass0, permute_bitrev_pass1, permute_bitrev_pass2) on fresh random inputs (outputs poisoned with 0xFF bytes
// first), checks every element it writes against the stages' CPU references run in order, and
// times the whole launch with CUDA events.
static bool run_permute_bitrev(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 3ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global u32[N], read: random.
  std::vector<std::uint32_t> a_img(1048576); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    a_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> a_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  std::uint32_t *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 'b': global u32[N], read and written: random.
  std::vector<std::uint32_t> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    b_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  std::uint32_t *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 's0' holds hmm_src(inverse(Q), pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 6.
  std::vector<std::uint16_t> s0_ref;
  if (!bw_read_table_6(s0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 6 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd0' holds hmm_dst(inverse(Q), pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 7.
  std::vector<std::uint16_t> d0_ref;
  if (!bw_read_table_7(d0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 7 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's1' holds hmm_src(inverse(Q), pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 8.
  std::vector<std::uint16_t> s1_ref;
  if (!bw_read_table_8(s1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 8 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd1' holds hmm_dst(inverse(Q), pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 9.
  std::vector<std::uint16_t> d1_ref;
  if (!bw_read_table_9(d1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 9 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's2' holds hmm_src(inverse(Q), pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 10.
  std::vector<std::uint16_t> s2_ref;
  if (!bw_read_table_10(s2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 10 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd2' holds hmm_dst(inverse(Q), pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 11.
  std::vector<std::uint16_t> d2_ref;
  if (!bw_read_table_11(d2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 11 (side file '%s')\n", bw_table_file);
    return false;
  }
  BANKWISE_CHECK(launch_permute_bitrev(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_bitrev_pass0(a_ref, b_ref, s0_ref, d0_ref);
  reference_permute_bitrev_pass1(b_ref, s1_ref, d1_ref);
  reference_permute_bitrev_pass2(b_ref, s2_ref, d2_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_bitrev: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_bitrev(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_bitrev(a, 1048576, b, 1048576, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(a));
  BANKWISE_CHECK(cudaFree(b));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_bitrev\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs launch 'permute_random_f64' (permute_random_f64_pass0, permute_random_f64_pass1, permute_random_f64_pass2) on fresh random inputs (outputs poisoned with 0xFF bytes
// first), checks every element it writes against the stages' CPU references run in order, and
// times the whole launch with CUDA events.
static bool run_permute_random_f64(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 6ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f64[N], read: random.
  std::vector<double> a_img(1048576); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(double));
  for (long long I = 0; I < 1048576; ++I)
    a_img[I] = bankwise::randomElement<double>(Rng);
  std::vector<double> a_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  double *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(double);
  // 'b': global f64[N], read and written: random.
  std::vector<double> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(double));
  for (long long I = 0; I < 1048576; ++I)
    b_img[I] = bankwise::randomElement<double>(Rng);
  std::vector<double> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  double *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(double);
  // 's0' holds hmm_src(P, pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 12.
  std::vector<std::uint16_t> s0_ref;
  if (!bw_read_table_12(s0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 12 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd0' holds hmm_dst(P, pass: 0) (seed 001 schedule plane: 16-bit block-local indices): the module's table 13.
  std::vector<std::uint16_t> d0_ref;
  if (!bw_read_table_13(d0_ref)) {
    std::fprintf(stderr, "harness: cannot read table 13 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's1' holds hmm_src(P, pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 14.
  std::vector<std::uint16_t> s1_ref;
  if (!bw_read_table_14(s1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 14 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd1' holds hmm_dst(P, pass: 1) (seed 001 schedule plane: 16-bit block-local indices): the module's table 15.
  std::vector<std::uint16_t> d1_ref;
  if (!bw_read_table_15(d1_ref)) {
    std::fprintf(stderr, "harness: cannot read table 15 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 's2' holds hmm_src(P, pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 16.
  std::vector<std::uint16_t> s2_ref;
  if (!bw_read_table_16(s2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 16 (side file '%s')\n", bw_table_file);
    return false;
  }
  // 'd2' holds hmm_dst(P, pass: 2) (seed 001 schedule plane: 16-bit block-local indices): the module's table 17.
  std::vector<std::uint16_t> d2_ref;
  if (!bw_read_table_17(d2_ref)) {
    std::fprintf(stderr, "harness: cannot read table 17 (side file '%s')\n", bw_table_file);
    return false;
  }
  BANKWISE_CHECK(launch_permute_random_f64(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_random_f64_pass0(a_ref, b_ref, s0_ref, d0_ref);
  reference_permute_random_f64_pass1(b_ref, s1_ref, d1_ref);
  reference_permute_random_f64_pass2(b_ref, s2_ref, d2_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_random_f64: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_random_f64(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_random_f64(a, 1048576, b, 1048576, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(a));
  BANKWISE_CHECK(cudaFree(b));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_random_f64\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace offline_permutation_scheduled

// Harness: `./a.out [--seed S] [--runs R] [--check-only]` prints one JSON line and exits
// with 0 when every kernel matches its CPU reference, 1 when one does not.
int main(int argc, char **argv) {
  unsigned long long Seed = 1ULL;
  int Runs = 21;
  bool Time = true;
  for (int I = 1; I < argc; ++I) {
    const std::string A = argv[I];
    if (A == "--seed" && I + 1 < argc)
      Seed = std::strtoull(argv[++I], nullptr, 10);
    else if (A == "--runs" && I + 1 < argc)
      Runs = std::max(20, std::atoi(argv[++I]));
    else if (A == "--check-only")
      Time = false;
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--runs R (>= 20)] [--check-only]\n", argv[0]);
      return 2;
    }
  }
  int Device = 0;
  BANKWISE_CHECK(cudaGetDevice(&Device));
  cudaDeviceProp Prop;
  BANKWISE_CHECK(cudaGetDeviceProperties(&Prop, Device));
  std::string Json;
  bool Ok = true;
  Ok = offline_permutation_scheduled::run_permute_random(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = offline_permutation_scheduled::run_permute_bitrev(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = offline_permutation_scheduled::run_permute_random_f64(Seed, Runs, Time, Json) && Ok;
  BANKWISE_CHECK(offline_permutation_scheduled::free_tables());
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/offline_permutation_scheduled.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
