// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'contiguous': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_contiguous(const std::vector<float> &m) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t_ = 0, t__end = N / P; t_ < t__end; t_ += 1) {
      std::vector<float> x(NT);
      for (Index t = 0; t < NT; ++t) {
        x[t] = m[t_ * P + t];
      }
    }
  }
}

// Runs 'contiguous' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_contiguous, and times it with CUDA events.
static bool run_contiguous(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'm': shared f32[N] layout raw, read: random.
  std::vector<float> m_img(65536); // the device bytes
  std::memset(static_cast<void *>(m_img.data()), 0xFF, m_img.size() * sizeof(float));
  for (long long I = 0; I < 65536; ++I)
    m_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> m_ref(65536);
  for (long long I = 0; I < 65536; ++I)
    m_ref[I] = bankwise::toHost(m_img[I]);
  float *m = nullptr;
  BANKWISE_CHECK(cudaMalloc(&m, m_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(m, m_img.data(), m_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 65536.0 * sizeof(float);
  BANKWISE_CHECK(launch_contiguous(m, 65536, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_contiguous(m_ref);
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_contiguous(m, 65536, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_contiguous(m, 65536, 0));
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
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"contiguous\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace contiguous_access

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
  Ok = contiguous_access::run_contiguous(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/contiguous_access.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
