// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'warp_sum': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_warp_sum(const std::vector<float> &a, std::vector<float> &out) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> v(NT);
    for (Index t = 0; t < NT; ++t) {
      v[t] = a[(bx) * 256 + t];
    }
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      std::vector<float> bw_s1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_s1[t] = v[t] + [&](Index t) { return v[t]; }(t - t % 32 + [](Index l, Index s) { return s >= 0 && s < 32 && l + s < 32 ? l + s : l; }(t % 32, 16 >> k));
      }
      for (Index t = 0; t < NT; ++t) {
        v[t] = bw_s1[t];
      }
    }
    {
      std::vector<char> bw_then2(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then2[t] = ((t % 32) == 0) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then2[t])
          continue;
        out[((bx) * 256 + t) / 32] = v[t];
      }
    }
  }
}

// CPU reference of 'warp_max': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_warp_max(const std::vector<std::int32_t> &a, std::vector<std::int32_t> &out) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<Index> m(NT);
    for (Index t = 0; t < NT; ++t) {
      m[t] = static_cast<Index>(a[(bx) * 256 + t]);
    }
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      std::vector<Index> bw_s1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_s1[t] = bankwise::maxOf(m[t], [&](Index t) { return m[t]; }(t - t % 32 + [](Index l, Index s) { return s >= 0 && (l ^ s) < 32 ? l ^ s : l; }(t % 32, 1LL << k)));
      }
      for (Index t = 0; t < NT; ++t) {
        m[t] = bw_s1[t];
      }
    }
    for (Index t = 0; t < NT; ++t) {
      out[(bx) * 256 + t] = static_cast<std::int32_t>(m[t]);
    }
  }
}

// CPU reference of 'warp_scan': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_warp_scan(const std::vector<std::int32_t> &a, std::vector<std::int32_t> &out) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<Index> x(NT);
    for (Index t = 0; t < NT; ++t) {
      x[t] = bankwise::floorMod(static_cast<Index>(a[(bx) * 256 + t]), 1000);
    }
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      std::vector<Index> y(NT);
      for (Index t = 0; t < NT; ++t) {
        y[t] = [&](Index t) { return x[t]; }(t - t % 32 + [](Index l, Index s) { return s >= 0 && l - s >= 0 ? l - s : l; }(t % 32, 1LL << k));
      }
      {
        std::vector<char> bw_then1(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then1[t] = ((t % 32) >= (1LL << k)) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then1[t])
            continue;
          x[t] = x[t] + y[t];
        }
      }
    }
    std::vector<std::int32_t> bw_s2(NT);
    for (Index t = 0; t < NT; ++t) {
      bw_s2[t] = static_cast<std::int32_t>(x[t] + [&](Index t) { return bankwise::floorMod(static_cast<Index>(a[(bx) * 256 + t]), 1000); }(t - t % 32 + [](Index, Index s) { return ((s % 32) + 32) % 32; }(t % 32, 0)));
    }
    for (Index t = 0; t < NT; ++t) {
      out[(bx) * 256 + t] = bw_s2[t];
    }
  }
}

// CPU reference of 'neighbour': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_neighbour(const std::vector<float> &a, std::vector<float> &out) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<Index> j(NT);
    for (Index t = 0; t < NT; ++t) {
      j[t] = [&](Index t) { return (bx) * 256 + t; }(t - t % 32 + [](Index l, Index s) { return s >= 0 && (l ^ s) < 32 ? l ^ s : l; }(t % 32, 1));
    }
    for (Index t = 0; t < NT; ++t) {
      out[j[t]] = a[(bx) * 256 + t];
    }
  }
}

// Runs 'warp_sum' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_warp_sum, and times it with CUDA events.
static bool run_warp_sum(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
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
  // 'out': global f32[N / 32], written only: poisoned.
  std::vector<float> out_img(128); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(128);
  for (long long I = 0; I < 128; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 128.0 * sizeof(float);
  BANKWISE_CHECK(launch_warp_sum(a, 4096, out, 128, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_warp_sum(a_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 128; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "warp_sum: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_warp_sum(a, 4096, out, 128, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_warp_sum(a, 4096, out, 128, 0));
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
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"warp_sum\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'warp_max' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_warp_max, and times it with CUDA events.
static bool run_warp_max(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global i32[N], read: random.
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
  // 'out': global i32[N], written only: poisoned.
  std::vector<std::int32_t> out_img(4096); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> out_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  std::int32_t *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::int32_t);
  BANKWISE_CHECK(launch_warp_max(a, 4096, out, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_warp_max(a_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "warp_max: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_warp_max(a, 4096, out, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_warp_max(a, 4096, out, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"warp_max\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'warp_scan' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_warp_scan, and times it with CUDA events.
static bool run_warp_scan(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global i32[N], read: random.
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
  // 'out': global i32[N], written only: poisoned.
  std::vector<std::int32_t> out_img(4096); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> out_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  std::int32_t *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::int32_t);
  BANKWISE_CHECK(launch_warp_scan(a, 4096, out, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_warp_scan(a_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "warp_scan: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_warp_scan(a, 4096, out, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_warp_scan(a, 4096, out, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"warp_scan\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'neighbour' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_neighbour, and times it with CUDA events.
static bool run_neighbour(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
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
  // 'out': global f32[N], written only: poisoned.
  std::vector<float> out_img(4096); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  BANKWISE_CHECK(launch_neighbour(a, 4096, out, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_neighbour(a_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "neighbour: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_neighbour(a, 4096, out, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_neighbour(a, 4096, out, 4096, 0));
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
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"neighbour\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace warp_shuffles

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
  Ok = warp_shuffles::run_warp_sum(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = warp_shuffles::run_warp_max(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = warp_shuffles::run_warp_scan(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = warp_shuffles::run_neighbour(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/warp_shuffles.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
