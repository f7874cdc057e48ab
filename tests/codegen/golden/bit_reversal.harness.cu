// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'bitrev_naive': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_bitrev_naive(const std::vector<float> &a, std::vector<float> &b, long long M) {
  using Index = long long;
  constexpr Index NT = 256;
  const long long bw_grid_x = bankwise::floorDiv(1LL << M, 256), bw_grid_y = 1, bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t = 0; t < NT; ++t) {
      b[bankwise::bitReverse(((bz * bw_grid_y + by) * bw_grid_x + bx) * 256 + t, M)] = a[((bz * bw_grid_y + by) * bw_grid_x + bx) * 256 + t];
    }
  }
}

// CPU reference of 'bitrev_tiled': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_bitrev_tiled(const std::vector<float> &a, std::vector<float> &b, long long M) {
  using Index = long long;
  constexpr Index NT = 256;
  [[maybe_unused]] const Index Mid = M - 10; // param (runtime)
  const long long bw_grid_x = 1LL << Mid, bw_grid_y = 1, bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index t = 0; t < NT; ++t) {
        tile[(t / 32 % 8 + 8 * k) * 32 + t % 32] = a[((t / 32 % 8 + 8 * k) * (1LL << Mid) + bx) * 32 + t % 32];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index t = 0; t < NT; ++t) {
        b[((t / 32 % 8 + 8 * k) * (1LL << Mid) + bankwise::bitReverse(bx, Mid)) * 32 + t % 32] = tile[bankwise::bitReverse(t % 32, 5) * 32 + bankwise::bitReverse(t / 32 % 8 + 8 * k, 5)];
      }
    }
  }
}

// Runs 'bitrev_naive' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_bitrev_naive, and times it with CUDA events.
static bool run_bitrev_naive(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long M) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[1 << M], read: random.
  if ((1LL << M) < 1) {
    std::fprintf(stderr, "harness: these sizes give 'a' %lld elements\n", static_cast<long long>((1LL << M)));
    return false;
  }
  std::vector<float> a_img((1LL << M)); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < (1LL << M); ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref((1LL << M));
  for (long long I = 0; I < (1LL << M); ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>((1LL << M)) * sizeof(float);
  // 'b': global f32[1 << M], written only: poisoned.
  if ((1LL << M) < 1) {
    std::fprintf(stderr, "harness: these sizes give 'b' %lld elements\n", static_cast<long long>((1LL << M)));
    return false;
  }
  std::vector<float> b_img((1LL << M)); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref((1LL << M));
  for (long long I = 0; I < (1LL << M); ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>((1LL << M)) * sizeof(float);
  BANKWISE_CHECK(launch_bitrev_naive(a, a_img.size(), b, b_img.size(), M, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_bitrev_naive(a_ref, b_ref, M);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < (1LL << M); ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "bitrev_naive: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_bitrev_naive(a, a_img.size(), b, b_img.size(), M, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_bitrev_naive(a, a_img.size(), b, b_img.size(), M, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"bitrev_naive\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'bitrev_tiled' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_bitrev_tiled, and times it with CUDA events.
static bool run_bitrev_tiled(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long M) {
  [[maybe_unused]] const long long Mid = M - 10; // param (runtime)
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[32][1 << Mid][32], read: random.
  if (32 * (1LL << Mid) * 32 < 1) {
    std::fprintf(stderr, "harness: these sizes give 'a' %lld elements\n", static_cast<long long>(32 * (1LL << Mid) * 32));
    return false;
  }
  std::vector<float> a_img(32 * (1LL << Mid) * 32); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(float));
  for (long long I = 0; I < 32 * (1LL << Mid) * 32; ++I)
    a_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> a_ref(32 * (1LL << Mid) * 32);
  for (long long I = 0; I < 32 * (1LL << Mid) * 32; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  float *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(32 * (1LL << Mid) * 32) * sizeof(float);
  // 'b': global f32[32][1 << Mid][32], written only: poisoned.
  if (32 * (1LL << Mid) * 32 < 1) {
    std::fprintf(stderr, "harness: these sizes give 'b' %lld elements\n", static_cast<long long>(32 * (1LL << Mid) * 32));
    return false;
  }
  std::vector<float> b_img(32 * (1LL << Mid) * 32); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(float));
  std::vector<float> b_ref(32 * (1LL << Mid) * 32);
  for (long long I = 0; I < 32 * (1LL << Mid) * 32; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  float *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(32 * (1LL << Mid) * 32) * sizeof(float);
  BANKWISE_CHECK(launch_bitrev_tiled(a, a_img.size(), b, b_img.size(), M, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_bitrev_tiled(a_ref, b_ref, M);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 32 * (1LL << Mid) * 32; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "bitrev_tiled: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_bitrev_tiled(a, a_img.size(), b, b_img.size(), M, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_bitrev_tiled(a, a_img.size(), b, b_img.size(), M, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"bitrev_tiled\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace bit_reversal

// A runtime size argument of the harness: true when A is `Name=VALUE`, VALUE a positive integer, which
// goes to V; exits with 2 when A is `Name=` followed by anything else.
static bool bw_size_argument(const std::string &A, const char *Name, long long &V) {
  const std::string Prefix = std::string(Name) + "=";
  if (A.compare(0, Prefix.size(), Prefix) != 0)
    return false;
  const char *Text = A.c_str() + Prefix.size();
  char *End = nullptr;
  const long long Value = std::strtoll(Text, &End, 10);
  if (End == Text || *End != '\0' || Value < 1) {
    std::fprintf(stderr, "harness: bad size '%s': expected %s=VALUE, VALUE a positive integer\n", A.c_str(), Name);
    std::exit(2);
  }
  V = Value;
  return true;
}

// Harness: `./a.out [--seed S] [--runs R] [--check-only] [M=VALUE]` prints one JSON line and exits
// with 0 when every kernel matches its CPU reference, 1 when one does not.
int main(int argc, char **argv) {
  unsigned long long Seed = 1ULL;
  int Runs = 21;
  bool Time = true;
  // Runtime sizes: NAME=VALUE arguments, by default the sizes the predictions were made at.
  long long M = 10LL;
  for (int I = 1; I < argc; ++I) {
    const std::string A = argv[I];
    if (A == "--seed" && I + 1 < argc)
      Seed = std::strtoull(argv[++I], nullptr, 10);
    else if (A == "--runs" && I + 1 < argc)
      Runs = std::max(20, std::atoi(argv[++I]));
    else if (A == "--check-only")
      Time = false;
    else if (bw_size_argument(A, "M", M))
      ;
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--runs R (>= 20)] [--check-only] [M=VALUE]\n", argv[0]);
      return 2;
    }
  }
  if (!((M >= 10) && (M <= 30))) {
    std::fprintf(stderr, "harness: the sizes break param M's constraint `where M >= 10 && M <= 30`\n");
    return 2;
  }
  [[maybe_unused]] const long long Mid = M - 10; // param (runtime)
  int Device = 0;
  BANKWISE_CHECK(cudaGetDevice(&Device));
  cudaDeviceProp Prop;
  BANKWISE_CHECK(cudaGetDeviceProperties(&Prop, Device));
  std::string Json;
  bool Ok = true;
  Ok = bit_reversal::run_bitrev_naive(Seed, Runs, Time, Json, M) && Ok;
  Json += ",";
  Ok = bit_reversal::run_bitrev_tiled(Seed, Runs, Time, Json, M) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"sizes\":{\"M\":%lld},\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/bit_reversal.bw\"", Prop.name, Seed, M, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
