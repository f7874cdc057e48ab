// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'bit_reverse': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_bit_reverse(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1024; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        tile[r[t] * 32 + t % 32] = a[t % 32 + (bx << 5) + (r[t] << 15)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        b[t % 32 + (bankwise::bitReverse(bx, 10) << 5) + (r[t] << 15)] = tile[bankwise::bitReverse(t % 32, 5) * 32 + bankwise::bitReverse(r[t], 5)];
      }
    }
  }
}

// CPU reference of 'shuffle_f32': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_shuffle_f32(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1024; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        tile[r[t] * 32 + t % 32] = a[t % 32 + ((r[t] & 15) << 5) + (bx << 9) + ((r[t] >> 4) << 19)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        b[t % 32 + (r[t] << 5) + (bx << 10)] = tile[((r[t] >> 1) + (((t % 32) & 1) << 4)) * 32 + (((t % 32) >> 1) + ((r[t] & 1) << 4))];
      }
    }
  }
}

// CPU reference of 'unshuffle_f32': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_unshuffle_f32(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1024; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        tile[r[t] * 32 + t % 32] = a[t % 32 + (r[t] << 5) + (bx << 10)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        b[t % 32 + ((r[t] & 15) << 5) + (bx << 9) + ((r[t] >> 4) << 19)] = tile[(((t % 32) >> 4) + ((r[t] & 15) << 1)) * 32 + ((r[t] >> 4) + (((t % 32) & 15) << 1))];
      }
    }
  }
}

// CPU reference of 'transpose_bits': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose_bits(const std::vector<double> &a, std::vector<double> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1024; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<double> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        tile[r[t] * 32 + t % 32] = a[t % 32 + ((bx & 31) << 5) + (r[t] << 10) + ((bx >> 5) << 15)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        b[t % 32 + ((bx >> 5) << 5) + (r[t] << 10) + ((bx & 31) << 15)] = tile[t % 32 * 32 + r[t]];
      }
    }
  }
}

// CPU reference of 'stride_gather': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_stride_gather(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1024; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        tile[r[t] * 32 + t % 32] = a[t % 32 + (bx << 5) + (r[t] << 15)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> r(NT);
      for (Index t = 0; t < NT; ++t) {
        r[t] = t / 32 % 8 + 8 * k;
      }
      for (Index t = 0; t < NT; ++t) {
        b[t % 32 + (r[t] << 5) + (bx << 10)] = tile[t % 32 * 32 + r[t]];
      }
    }
  }
}

// Runs 'bit_reverse' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_bit_reverse, and times it with CUDA events.
static bool run_bit_reverse(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
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
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  BANKWISE_CHECK(launch_bit_reverse(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_bit_reverse(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "bit_reverse: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_bit_reverse(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_bit_reverse(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"bit_reverse\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'shuffle_f32' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_shuffle_f32, and times it with CUDA events.
static bool run_shuffle_f32(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
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
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  BANKWISE_CHECK(launch_shuffle_f32(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_shuffle_f32(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "shuffle_f32: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_shuffle_f32(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_shuffle_f32(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"shuffle_f32\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'unshuffle_f32' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_unshuffle_f32, and times it with CUDA events.
static bool run_unshuffle_f32(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
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
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  BANKWISE_CHECK(launch_unshuffle_f32(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_unshuffle_f32(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "unshuffle_f32: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_unshuffle_f32(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_unshuffle_f32(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"unshuffle_f32\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'transpose_bits' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose_bits, and times it with CUDA events.
static bool run_transpose_bits(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 3ULL};
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
  // 'b': global f64[N], written only: poisoned.
  std::vector<double> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(double));
  std::vector<double> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  double *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(double);
  BANKWISE_CHECK(launch_transpose_bits(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose_bits(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose_bits: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose_bits(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose_bits(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose_bits\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'stride_gather' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_stride_gather, and times it with CUDA events.
static bool run_stride_gather(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 4ULL};
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
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(1048576); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(float);
  BANKWISE_CHECK(launch_stride_gather(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_stride_gather(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "stride_gather: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_stride_gather(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_stride_gather(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"stride_gather\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace bit_permutations

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
  Ok = bit_permutations::run_bit_reverse(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = bit_permutations::run_shuffle_f32(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = bit_permutations::run_unshuffle_f32(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = bit_permutations::run_transpose_bits(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = bit_permutations::run_stride_gather(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/bit_permutations.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
