// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'permute_named': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_named(const std::vector<float> &a, std::vector<float> &b) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 4096; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t = 0; t < NT; ++t) {
      b[bankwise::shufflePerm((bx) * 256 + t, 20)] = a[(bx) * 256 + t];
    }
  }
}

// CPU reference of 'permute_file': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_file(const std::vector<double> &a, std::vector<double> &b, const std::vector<std::int32_t> &q) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 16; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t = 0; t < NT; ++t) {
      b[(bx) * 256 + t] = a[static_cast<Index>(q[(bx) * 256 + t])];
    }
  }
}

// Runs 'permute_named' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_permute_named, and times it with CUDA events.
static bool run_permute_named(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
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
  BANKWISE_CHECK(launch_permute_named(a, 1048576, b, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_named(a_ref, b_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_named: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_named(a, 1048576, b, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_named(a, 1048576, b, 1048576, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_named\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'permute_file' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_permute_file, and times it with CUDA events.
static bool run_permute_file(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f64[NF], read: random.
  std::vector<double> a_img(4096); // the device bytes
  std::memset(static_cast<void *>(a_img.data()), 0xFF, a_img.size() * sizeof(double));
  for (long long I = 0; I < 4096; ++I)
    a_img[I] = bankwise::randomElement<double>(Rng);
  std::vector<double> a_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    a_ref[I] = bankwise::toHost(a_img[I]);
  double *a = nullptr;
  BANKWISE_CHECK(cudaMalloc(&a, a_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(a, a_img.data(), a_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(double);
  // 'b': global f64[NF], written only: poisoned.
  std::vector<double> b_img(4096); // the device bytes
  std::memset(static_cast<void *>(b_img.data()), 0xFF, b_img.size() * sizeof(double));
  std::vector<double> b_ref(4096);
  for (long long I = 0; I < 4096; ++I)
    b_ref[I] = bankwise::toHost(b_img[I]);
  double *b = nullptr;
  BANKWISE_CHECK(cudaMalloc(&b, b_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(b, b_img.data(), b_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 4096.0 * sizeof(double);
  // 'q' holds inverse of file("offline_permutation.p.bin"): the module's table 0.
  std::vector<std::int32_t> q_ref;
  if (!bw_read_table_0(q_ref)) {
    std::fprintf(stderr, "harness: cannot read table 0 (side file '%s')\n", bw_table_file);
    return false;
  }
  BANKWISE_CHECK(launch_permute_file(a, 4096, b, 4096, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_file(a_ref, b_ref, q_ref);
  BANKWISE_CHECK(cudaMemcpy(b_img.data(), b, b_img.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 4096; ++I) {
    const auto Got = bankwise::toHost(b_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, b_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_file: b[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(b_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_file(a, 4096, b, 4096, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_file(a, 4096, b, 4096, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_file\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace offline_permutation

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
  Ok = offline_permutation::run_permute_named(Seed, Runs, Time, Json) && Ok;
  Json += ",";
  Ok = offline_permutation::run_permute_file(Seed, Runs, Time, Json) && Ok;
  BANKWISE_CHECK(offline_permutation::free_tables());
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/offline_permutation.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
