// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'copy4': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_copy4(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4; ++bx) {
    (void)bx, (void)by, (void)bz;
    [[maybe_unused]] const bankwise::Vec<float, 4> *const a4 = reinterpret_cast<const bankwise::Vec<float, 4> *>(a.data()); // view of 'a'
    [[maybe_unused]] bankwise::Vec<float, 4> *const b4 = reinterpret_cast<bankwise::Vec<float, 4> *>(b.data()); // view of 'b'
    for (Index t = 0; t < NT; ++t) {
      b4[bx * 256 + t] = a4[bx * 256 + t];
    }
  }
}

// CPU reference of 'reverse4': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_reverse4(const std::vector<float> &a, std::vector<float> &b, std::vector<float> &c) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> s(1024); // shared, per block
    [[maybe_unused]] bankwise::Vec<float, 4> *const s4 = reinterpret_cast<bankwise::Vec<float, 4> *>(s.data()); // view of 's'
    [[maybe_unused]] const bankwise::Vec<float, 4> *const a4 = reinterpret_cast<const bankwise::Vec<float, 4> *>(a.data()); // view of 'a'
    [[maybe_unused]] bankwise::Vec<float, 4> *const b4 = reinterpret_cast<bankwise::Vec<float, 4> *>(b.data()); // view of 'b'
    for (Index t = 0; t < NT; ++t) {
      s4[t] = a4[bx * 256 + t];
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      b4[bx * 256 + t] = s4[255 - t];
    }
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index t = 0; t < NT; ++t) {
        c[bx * 1024 + 256 * k + t] = s[256 * k + t] * 2;
      }
    }
  }
}

// CPU reference of 'small': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_small(const std::vector<std::int32_t> &a, std::vector<std::int32_t> &b, const std::vector<std::uint8_t> &p, std::vector<std::uint8_t> &q) {
  using Index = long long;
  constexpr Index NT = 64;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    [[maybe_unused]] const bankwise::Vec<std::int32_t, 2> *const a2 = reinterpret_cast<const bankwise::Vec<std::int32_t, 2> *>(a.data()); // view of 'a'
    [[maybe_unused]] bankwise::Vec<std::int32_t, 2> *const b2 = reinterpret_cast<bankwise::Vec<std::int32_t, 2> *>(b.data()); // view of 'b'
    [[maybe_unused]] const bankwise::Vec<std::uint8_t, 4> *const p4 = reinterpret_cast<const bankwise::Vec<std::uint8_t, 4> *>(p.data()); // view of 'p'
    [[maybe_unused]] bankwise::Vec<std::uint8_t, 4> *const q4 = reinterpret_cast<bankwise::Vec<std::uint8_t, 4> *>(q.data()); // view of 'q'
    for (Index r = 0, r_end = 2; r < r_end; r += 1) {
      for (Index t = 0; t < NT; ++t) {
        b2[(bx * 4 + t / 32 * 2 + r) * 32 + t % 32] = a2[(bx * 4 + t / 32 * 2 + r) * 32 + (31 - t % 32)];
      }
    }
    for (Index t = 0; t < NT; ++t) {
      q4[bx * 64 + t] = p4[bx * 64 + 63 - t];
    }
  }
}

// CPU reference of 'fragments': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_fragments(const std::vector<float> &a, std::vector<float> &b, std::vector<float> &c) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> s(1024); // shared, per block
    [[maybe_unused]] bankwise::Vec<float, 4> *const s4 = reinterpret_cast<bankwise::Vec<float, 4> *>(s.data()); // view of 's'
    [[maybe_unused]] const bankwise::Vec<float, 4> *const a4 = reinterpret_cast<const bankwise::Vec<float, 4> *>(a.data()); // view of 'a'
    [[maybe_unused]] bankwise::Vec<float, 4> *const b4 = reinterpret_cast<bankwise::Vec<float, 4> *>(b.data()); // view of 'b'
    [[maybe_unused]] bankwise::Vec<float, 4> *const c4 = reinterpret_cast<bankwise::Vec<float, 4> *>(c.data()); // view of 'c'
    for (Index t = 0; t < NT; ++t) {
      s4[t] = a4[bx * 256 + t];
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      b4[bx * 256 + t] = s4[32 * (t / 32) + 4 * (t % 8) + t % 32 / 8];
    }
    for (Index t = 0; t < NT; ++t) {
      c4[bx * 256 + t] = s4[t / 32];
    }
  }
}

// Runs 'copy4' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_copy4, and times it with CUDA events.
static bool run_copy4(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[N], read: random.
  std::vector<float> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(4096); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  BANKWISE_CHECK(launch_copy4(a, 4096, b, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_copy4(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "copy4: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_copy4(a, 4096, b, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_copy4(a, 4096, b, 4096, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"copy4\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'reverse4' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_reverse4, and times it with CUDA events.
static bool run_reverse4(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[N], read: random.
  std::vector<float> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(4096); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'c': global f32[N], written only: poisoned.
  std::vector<float> c_img(4096); // the device bytes
  std::memset(static_cast<void *>(c_img.data()), 0xFF, c_img.size() * sizeof(float));
  std::vector<float> c_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    c_ref[I] = bankwise::toHost(c_img[I]);
  float *c = nullptr;
  BANKWISE_CHECK(cudaMalloc(&c, c_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(c, c_img.data(), c_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  BANKWISE_CHECK(launch_reverse4(a, 4096, b, 4096, c, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_reverse4(a_ref, b_ref, c_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "reverse4: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  BANKWISE_CHECK(cudaMemcpy(c_img.data(), c, c_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(c_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, c_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "reverse4: c[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(c_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_reverse4(a, 4096, b, 4096, c, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_reverse4(a, 4096, b, 4096, c, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(c));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"reverse4\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'small' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_small, and times it with CUDA events.
static bool run_small(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global i32[64][64], read: random.
  std::vector<std::int32_t> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(std::int32_t));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<std::int32_t>(Rng);
  std::vector<std::int32_t> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  std::int32_t *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::int32_t);
  // 'b': global i32[64][64], written only: poisoned.
  std::vector<std::int32_t> b_img(4096); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> b_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  std::int32_t *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::int32_t);
  // 'p': global u8[N], read: random.
  std::vector<std::uint8_t> p_img(4096); // the device bytes
  std::memset(static_cast<void *>(p_img.data()), 0xFF, p_img.size() * sizeof(std::uint8_t));
  for (long long I = 0; I < 4096; ++I)
    p_img[I] = bankwise::randomElement<std::uint8_t>(Rng);
  std::vector<std::uint8_t> p_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    p_ref[I] = bankwise::toHost(p_img[I]);
  std::uint8_t *p = nullptr;
  BANKWISE_CHECK(cudaMalloc(&p, p_img.size() * sizeof(std::uint8_t)));
  BANKWISE_CHECK(cudaMemcpy(p, p_img.data(), p_img.size() * sizeof(std::uint8_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::uint8_t);
  // 'q': global u8[N], written only: poisoned.
  std::vector<std::uint8_t> q_img(4096); // the device bytes
  std::memset(static_cast<void *>(q_img.data()), 0xFF, q_img.size() * sizeof(std::uint8_t));
  std::vector<std::uint8_t> q_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    q_ref[I] = bankwise::toHost(q_img[I]);
  std::uint8_t *q = nullptr;
  BANKWISE_CHECK(cudaMalloc(&q, q_img.size() * sizeof(std::uint8_t)));
  BANKWISE_CHECK(cudaMemcpy(q, q_img.data(), q_img.size() * sizeof(std::uint8_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::uint8_t);
  BANKWISE_CHECK(launch_small(a, 4096, b, 4096, p, 4096, q, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_small(a_ref, b_ref, p_ref, q_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "small: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  BANKWISE_CHECK(cudaMemcpy(q_img.data(), q, q_img.size() * sizeof(std::uint8_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(q_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, q_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "small: q[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(q_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_small(a, 4096, b, 4096, p, 4096, q, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_small(a, 4096, b, 4096, p, 4096, q, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(p));
  BANKWISE_CHECK(cudaFree(q));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"small\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'fragments' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_fragments, and times it with CUDA events.
static bool run_fragments(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 3ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[N], read: random.
  std::vector<float> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'b': global f32[N], written only: poisoned.
  std::vector<float> b_img(4096); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'c': global f32[N], written only: poisoned.
  std::vector<float> c_img(4096); // the device bytes
  std::memset(static_cast<void *>(c_img.data()), 0xFF, c_img.size() * sizeof(float));
  std::vector<float> c_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    c_ref[I] = bankwise::toHost(c_img[I]);
  float *c = nullptr;
  BANKWISE_CHECK(cudaMalloc(&c, c_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(c, c_img.data(), c_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  BANKWISE_CHECK(launch_fragments(a, 4096, b, 4096, c, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_fragments(a_ref, b_ref, c_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "fragments: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  BANKWISE_CHECK(cudaMemcpy(c_img.data(), c, c_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(c_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, c_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "fragments: c[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(c_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_fragments(a, 4096, b, 4096, c, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_fragments(a, 4096, b, 4096, c, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(c));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"fragments\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace vector_views

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
  Ok = vector_views::run_copy4(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = vector_views::run_reverse4(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = vector_views::run_small(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = vector_views::run_fragments(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/vector_views.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
