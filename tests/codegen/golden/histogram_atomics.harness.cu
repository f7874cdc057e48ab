// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'one_bin': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_one_bin(const std::vector<std::uint32_t> &keys, std::vector<std::uint32_t> &bins) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4096; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> hist(64); // shared, per block
    {
      std::vector<char> bw_then1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then1[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then1[t])
          continue;
        hist[t] = static_cast<std::uint32_t>(0);
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + static_cast<std::uint32_t>(static_cast<Index>(keys[bx * 256 + t]) & 1)); return old; }(hist[t / 32]);
    }
    // sync: every thread finished the statements above (lockstep).
    {
      std::vector<char> bw_then2(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then2[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then2[t])
          continue;
        [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + hist[t]); return old; }(bins[t]);
      }
    }
  }
}

// CPU reference of 'lane_bins': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_lane_bins(const std::vector<std::uint32_t> &keys, std::vector<std::uint32_t> &bins) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4096; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> hist(64); // shared, per block
    {
      std::vector<char> bw_then1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then1[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then1[t])
          continue;
        hist[t] = static_cast<std::uint32_t>(0);
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + static_cast<std::uint32_t>(static_cast<Index>(keys[bx * 256 + t]) & 1)); return old; }(hist[t % 32]);
    }
    // sync: every thread finished the statements above (lockstep).
    {
      std::vector<char> bw_then2(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then2[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then2[t])
          continue;
        [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + hist[t]); return old; }(bins[t]);
      }
    }
  }
}

// CPU reference of 'paired_bins': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_paired_bins(const std::vector<std::uint32_t> &keys, std::vector<std::uint32_t> &bins) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4096; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> hist(64); // shared, per block
    {
      std::vector<char> bw_then1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then1[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then1[t])
          continue;
        hist[t] = static_cast<std::uint32_t>(0);
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + static_cast<std::uint32_t>(static_cast<Index>(keys[bx * 256 + t]) & 1)); return old; }(hist[2 * (t % 32)]);
    }
    // sync: every thread finished the statements above (lockstep).
    {
      std::vector<char> bw_then2(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then2[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then2[t])
          continue;
        [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + hist[t]); return old; }(bins[t]);
      }
    }
  }
}

// CPU reference of 'keyed': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_keyed(const std::vector<std::uint32_t> &keys, std::vector<std::uint32_t> &bins) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4096; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::uint32_t> hist(64); // shared, per block
    {
      std::vector<char> bw_then1(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then1[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then1[t])
          continue;
        hist[t] = static_cast<std::uint32_t>(0);
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index t = 0; t < NT; ++t) {
      [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + static_cast<std::uint32_t>(1)); return old; }(hist[static_cast<Index>(keys[bx * 256 + t]) % 64]);
    }
    // sync: every thread finished the statements above (lockstep).
    {
      std::vector<char> bw_then2(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then2[t] = (t < 64) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then2[t])
          continue;
        [&](std::uint32_t &e) { const std::uint32_t old = e; e = static_cast<std::uint32_t>(e + hist[t]); return old; }(bins[t]);
      }
    }
  }
}

// Runs 'one_bin' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_one_bin, and times it with CUDA events.
static bool run_one_bin(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'keys': global u32[N], read: random.
  std::vector<std::uint32_t> keys_img(1048576); // the device bytes
  std::memset(static_cast<void *>(keys_img.data()), 0xFF, keys_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    keys_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> keys_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    keys_ref[I] = bankwise::toHost(keys_img[I]);
  std::uint32_t *keys = nullptr;
  BANKWISE_CHECK(cudaMalloc(&keys, keys_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(keys, keys_img.data(), keys_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 'bins': global u32[64], read and written: random.
  std::vector<std::uint32_t> bins_img(64); // the device bytes
  std::memset(static_cast<void *>(bins_img.data()), 0xFF, bins_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 64; ++I)
    bins_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> bins_ref(64);
  for (long long I = 0; I < 64; ++I)
    bins_ref[I] = bankwise::toHost(bins_img[I]);
  std::uint32_t *bins = nullptr;
  BANKWISE_CHECK(cudaMalloc(&bins, bins_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(bins, bins_img.data(), bins_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 128.0 * sizeof(std::uint32_t);
  BANKWISE_CHECK(launch_one_bin(keys, 1048576, bins, 64, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_one_bin(keys_ref, bins_ref);
  BANKWISE_CHECK(cudaMemcpy(bins_img.data(), bins, bins_img.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 64; ++I) {
    const auto Got = bankwise::toHost(bins_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, bins_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "one_bin: bins[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(bins_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_one_bin(keys, 1048576, bins, 64, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_one_bin(keys, 1048576, bins, 64, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(keys));
  BANKWISE_CHECK(cudaFree(bins));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"one_bin\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'lane_bins' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_lane_bins, and times it with CUDA events.
static bool run_lane_bins(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'keys': global u32[N], read: random.
  std::vector<std::uint32_t> keys_img(1048576); // the device bytes
  std::memset(static_cast<void *>(keys_img.data()), 0xFF, keys_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    keys_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> keys_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    keys_ref[I] = bankwise::toHost(keys_img[I]);
  std::uint32_t *keys = nullptr;
  BANKWISE_CHECK(cudaMalloc(&keys, keys_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(keys, keys_img.data(), keys_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 'bins': global u32[64], read and written: random.
  std::vector<std::uint32_t> bins_img(64); // the device bytes
  std::memset(static_cast<void *>(bins_img.data()), 0xFF, bins_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 64; ++I)
    bins_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> bins_ref(64);
  for (long long I = 0; I < 64; ++I)
    bins_ref[I] = bankwise::toHost(bins_img[I]);
  std::uint32_t *bins = nullptr;
  BANKWISE_CHECK(cudaMalloc(&bins, bins_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(bins, bins_img.data(), bins_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 128.0 * sizeof(std::uint32_t);
  BANKWISE_CHECK(launch_lane_bins(keys, 1048576, bins, 64, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_lane_bins(keys_ref, bins_ref);
  BANKWISE_CHECK(cudaMemcpy(bins_img.data(), bins, bins_img.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 64; ++I) {
    const auto Got = bankwise::toHost(bins_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, bins_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "lane_bins: bins[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(bins_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_lane_bins(keys, 1048576, bins, 64, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_lane_bins(keys, 1048576, bins, 64, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(keys));
  BANKWISE_CHECK(cudaFree(bins));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"lane_bins\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'paired_bins' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_paired_bins, and times it with CUDA events.
static bool run_paired_bins(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'keys': global u32[N], read: random.
  std::vector<std::uint32_t> keys_img(1048576); // the device bytes
  std::memset(static_cast<void *>(keys_img.data()), 0xFF, keys_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    keys_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> keys_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    keys_ref[I] = bankwise::toHost(keys_img[I]);
  std::uint32_t *keys = nullptr;
  BANKWISE_CHECK(cudaMalloc(&keys, keys_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(keys, keys_img.data(), keys_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 'bins': global u32[64], read and written: random.
  std::vector<std::uint32_t> bins_img(64); // the device bytes
  std::memset(static_cast<void *>(bins_img.data()), 0xFF, bins_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 64; ++I)
    bins_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> bins_ref(64);
  for (long long I = 0; I < 64; ++I)
    bins_ref[I] = bankwise::toHost(bins_img[I]);
  std::uint32_t *bins = nullptr;
  BANKWISE_CHECK(cudaMalloc(&bins, bins_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(bins, bins_img.data(), bins_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 128.0 * sizeof(std::uint32_t);
  BANKWISE_CHECK(launch_paired_bins(keys, 1048576, bins, 64, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_paired_bins(keys_ref, bins_ref);
  BANKWISE_CHECK(cudaMemcpy(bins_img.data(), bins, bins_img.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 64; ++I) {
    const auto Got = bankwise::toHost(bins_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, bins_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "paired_bins: bins[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(bins_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_paired_bins(keys, 1048576, bins, 64, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_paired_bins(keys, 1048576, bins, 64, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(keys));
  BANKWISE_CHECK(cudaFree(bins));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"paired_bins\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'keyed' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_keyed, and times it with CUDA events.
static bool run_keyed(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 3ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'keys': global u32[N], read: random.
  std::vector<std::uint32_t> keys_img(1048576); // the device bytes
  std::memset(static_cast<void *>(keys_img.data()), 0xFF, keys_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 1048576; ++I)
    keys_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> keys_ref(1048576);
  for (long long I = 0; I < 1048576; ++I)
    keys_ref[I] = bankwise::toHost(keys_img[I]);
  std::uint32_t *keys = nullptr;
  BANKWISE_CHECK(cudaMalloc(&keys, keys_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(keys, keys_img.data(), keys_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 1048576.0 * sizeof(std::uint32_t);
  // 'bins': global u32[64], read and written: random.
  std::vector<std::uint32_t> bins_img(64); // the device bytes
  std::memset(static_cast<void *>(bins_img.data()), 0xFF, bins_img.size() * sizeof(std::uint32_t));
  for (long long I = 0; I < 64; ++I)
    bins_img[I] = bankwise::randomElement<std::uint32_t>(Rng);
  std::vector<std::uint32_t> bins_ref(64);
  for (long long I = 0; I < 64; ++I)
    bins_ref[I] = bankwise::toHost(bins_img[I]);
  std::uint32_t *bins = nullptr;
  BANKWISE_CHECK(cudaMalloc(&bins, bins_img.size() * sizeof(std::uint32_t)));
  BANKWISE_CHECK(cudaMemcpy(bins, bins_img.data(), bins_img.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  Bytes += 128.0 * sizeof(std::uint32_t);
  BANKWISE_CHECK(launch_keyed(keys, 1048576, bins, 64, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_keyed(keys_ref, bins_ref);
  BANKWISE_CHECK(cudaMemcpy(bins_img.data(), bins, bins_img.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 64; ++I) {
    const auto Got = bankwise::toHost(bins_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, bins_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "keyed: bins[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(bins_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_keyed(keys, 1048576, bins, 64, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_keyed(keys, 1048576, bins, 64, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(keys));
  BANKWISE_CHECK(cudaFree(bins));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"keyed\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace histogram_atomics

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
  Ok = histogram_atomics::run_one_bin(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = histogram_atomics::run_lane_bins(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = histogram_atomics::run_paired_bins(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = histogram_atomics::run_keyed(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/histogram_atomics.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
