// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'grid_stride': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_grid_stride(const std::vector<float> &x, const std::vector<float> &y, std::vector<float> &out) {
  using Index = long long;
  constexpr Index NT = 128;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 8; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::int32_t> i(NT);
    for (Index t = 0; t < NT; ++t) {
      i[t] = bx * 128 + t;
    }
    std::vector<float> s(NT);
    for (Index t = 0; t < NT; ++t) {
      s[t] = 0;
    }
    std::vector<std::int32_t> k(NT);
    for (Index t = 0; t < NT; ++t) {
      k[t] = i[t];
    }
    {
      std::vector<char> bw_w1(NT, 1);
      for (;;) {
        bool bw_any = false;
        for (Index t = 0; t < NT; ++t) {
          bw_w1[t] = bw_w1[t] && (k[t] < N) != 0;
          bw_any = bw_any || bw_w1[t];
        }
        if (!bw_any)
          break;
        for (Index t = 0; t < NT; ++t) {
          if (!bw_w1[t])
            continue;
          s[t] = s[t] + (0.5f * x[k[t]] * (bankwise::floorMod(k[t], 2) == 0 ? 1.0f : -1.0f) + y[k[t]]);
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_w1[t])
            continue;
          k[t] = k[t] + 128 * (N / 4 / 128);
        }
      }
    }
    for (Index t = 0; t < NT; ++t) {
      s[t] = s[t] * 0.25f;
    }
    for (Index t = 0; t < NT; ++t) {
      out[i[t]] = s[t];
    }
  }
}

// CPU reference of 'block_sum': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_block_sum(const std::vector<std::uint16_t> &a, std::vector<std::int32_t> &sums) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::int32_t> part(256); // shared, per block
    for (Index t = 0; t < NT; ++t) {
      part[t] = static_cast<std::int32_t>(static_cast<Index>(a[bx * 256 + t]));
    }
    // sync: every thread finished the statements above (lockstep).
    std::vector<Index> h(NT);
    for (Index t = 0; t < NT; ++t) {
      h[t] = 256 / 2;
    }
    {
      std::vector<char> bw_w1(NT, 1);
      for (;;) {
        bool bw_any = false;
        for (Index t = 0; t < NT; ++t) {
          bw_w1[t] = bw_w1[t] && (h[t] > 0) != 0;
          bw_any = bw_any || bw_w1[t];
        }
        if (!bw_any)
          break;
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            if (!bw_w1[t])
              continue;
            bw_then2[t] = (t < h[t]) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            part[t] = static_cast<std::int32_t>(static_cast<Index>(part[t]) + static_cast<Index>(part[t + h[t]]));
          }
        }
        // sync: every thread finished the statements above (lockstep).
        for (Index t = 0; t < NT; ++t) {
          if (!bw_w1[t])
            continue;
          h[t] = h[t] >> 1;
        }
      }
    }
    {
      std::vector<char> bw_then3(NT);
      for (Index t = 0; t < NT; ++t) {
        bw_then3[t] = (t == 0) != 0;
      }
      for (Index t = 0; t < NT; ++t) {
        if (!bw_then3[t])
          continue;
        sums[bx] = part[0];
      }
    }
  }
}

// CPU reference of 'row_sums': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_row_sums(const std::vector<std::uint8_t> &m, std::vector<std::int32_t> &r) {
  using Index = long long;
  constexpr Index NT = 64;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::int32_t> acc(NT);
    for (Index t = 0; t < NT; ++t) {
      acc[t] = 0;
    }
    for (Index j = 0, j_end = N; j < j_end; j += 1) {
      for (Index t = 0; t < NT; ++t) {
        acc[t] = acc[t] + static_cast<Index>(m[j * 64 + t]);
      }
    }
    for (Index t = 0; t < NT; ++t) {
      r[t] = static_cast<std::int32_t>(acc[t]);
    }
  }
}

// Runs 'grid_stride' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_grid_stride, and times it with CUDA events.
static bool run_grid_stride(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'x': global f32[N], read: random.
  std::vector<float> x_img(4096); // the device bytes
  std::memset(static_cast<void *>(x_img.data()), 0xFF, x_img.size() * sizeof(float));
  for (long long I = 0; I < 4096; ++I)
    x_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> x_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    x_ref[I] = bankwise::toHost(x_img[I]);
  float *x = nullptr;
  BANKWISE_CHECK(cudaMalloc(&x, x_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(x, x_img.data(), x_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'y': global f32[N], read: random.
  std::vector<float> y_img(4096); // the device bytes
  std::memset(static_cast<void *>(y_img.data()), 0xFF, y_img.size() * sizeof(float));
  for (long long I = 0; I < 4096; ++I)
    y_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> y_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    y_ref[I] = bankwise::toHost(y_img[I]);
  float *y = nullptr;
  BANKWISE_CHECK(cudaMalloc(&y, y_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(y, y_img.data(), y_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(float);
  // 'out': global f32[N / 4], written only: poisoned.
  std::vector<float> out_img(1024); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(1024);
  for (long long I = 0; I < 1024; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1024.0 * sizeof(float);
  BANKWISE_CHECK(launch_grid_stride(x, 4096, y, 4096, out, 1024, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_grid_stride(x_ref, y_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1024; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "grid_stride: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_grid_stride(x, 4096, y, 4096, out, 1024, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_grid_stride(x, 4096, y, 4096, out, 1024, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(x));
  BANKWISE_CHECK(cudaFree(y));
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"grid_stride\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'block_sum' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_block_sum, and times it with CUDA events.
static bool run_block_sum(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global u16[N], read: random.
  std::vector<std::uint16_t> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(std::uint16_t));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<std::uint16_t>(Rng);
  std::vector<std::uint16_t> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  std::uint16_t *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(std::uint16_t)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(std::uint16_t);
  // 'sums': global i32[N / 256], written only: poisoned.
  std::vector<std::int32_t> sums_img(16); // the device bytes
  std::memset(static_cast<void *>(sums_img.data()), 0xFF, sums_img.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> sums_ref(16);
  for (long long I = 0; I < 16; ++I)
    sums_ref[I] = bankwise::toHost(sums_img[I]);
  std::int32_t *sums = nullptr;
  BANKWISE_CHECK(cudaMalloc(&sums, sums_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(sums, sums_img.data(), sums_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 16.0 * sizeof(std::int32_t);
  BANKWISE_CHECK(launch_block_sum(a, 4096, sums, 16, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_block_sum(a_ref, sums_ref);
  BANKWISE_CHECK(cudaMemcpy(sums_img.data(), sums, sums_img.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 16; ++I) {
    const auto Got = bankwise::toHost(sums_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, sums_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "block_sum: sums[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(sums_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_block_sum(a, 4096, sums, 16, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_block_sum(a, 4096, sums, 16, 0));
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
  BANKWISE_CHECK(cudaFree(sums));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"block_sum\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'row_sums' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_row_sums, and times it with CUDA events.
static bool run_row_sums(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'm': global u8[N][64], read: random.
  std::vector<std::uint8_t> m_img(262144); // the device bytes
  std::memset(static_cast<void *>(m_img.data()), 0xFF, m_img.size() * sizeof(std::uint8_t));
  for (long long I = 0; I < 262144; ++I)
    m_img[I] = bankwise::randomElement<std::uint8_t>(Rng);
  std::vector<std::uint8_t> m_ref(262144);
  for (long long I = 0; I < 262144; ++I)
    m_ref[I] = bankwise::toHost(m_img[I]);
  std::uint8_t *m = nullptr;
  BANKWISE_CHECK(cudaMalloc(&m, m_img.size() * sizeof(std::uint8_t)));
  BANKWISE_CHECK(cudaMemcpy(m, m_img.data(), m_img.size() * sizeof(std::uint8_t), cudaMemcpyHostToDevice));
  Bytes += 262144.0 * sizeof(std::uint8_t);
  // 'r': global i32[64], written only: poisoned.
  std::vector<std::int32_t> r_img(64); // the device bytes
  std::memset(static_cast<void *>(r_img.data()), 0xFF, r_img.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> r_ref(64);
  for (long long I = 0; I < 64; ++I)
    r_ref[I] = bankwise::toHost(r_img[I]);
  std::int32_t *r = nullptr;
  BANKWISE_CHECK(cudaMalloc(&r, r_img.size() * sizeof(std::int32_t)));
  BANKWISE_CHECK(cudaMemcpy(r, r_img.data(), r_img.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Bytes += 64.0 * sizeof(std::int32_t);
  BANKWISE_CHECK(launch_row_sums(m, 262144, r, 64, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_row_sums(m_ref, r_ref);
  BANKWISE_CHECK(cudaMemcpy(r_img.data(), r, r_img.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 64; ++I) {
    const auto Got = bankwise::toHost(r_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, r_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "row_sums: r[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(r_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_row_sums(m, 262144, r, 64, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_row_sums(m, 262144, r, 64, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(m));
  BANKWISE_CHECK(cudaFree(r));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"row_sums\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace cuda_habits

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
  Ok = cuda_habits::run_grid_stride(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = cuda_habits::run_block_sum(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = cuda_habits::run_row_sums(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/cuda_habits.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
