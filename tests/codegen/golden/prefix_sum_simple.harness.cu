// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'prefix_sum_simple': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_prefix_sum_simple(std::vector<float> &a) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t_ = 0, t__end = M; t_ < t__end; t_ += 1) {
      const Index h = 1LL << t_;
      for (Index r = 0, r_end = (N - h + P - 1) / P; r < r_end; r += 1) {
        std::vector<Index> i(NT);
        for (Index t = 0; t < NT; ++t) {
          i[t] = h + r * P + t;
        }
        std::vector<float> x(NT);
        for (Index t = 0; t < NT; ++t) {
          x[t] = 0;
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (i[t] < N) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            x[t] = a[i[t]] + a[i[t] - h];
          }
        }
        // sync: every thread finished the statements above (lockstep).
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (i[t] < N) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            a[i[t]] = x[t];
          }
        }
        // sync: every thread finished the statements above (lockstep).
      }
    }
  }
}

// Runs 'prefix_sum_simple' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_prefix_sum_simple, and times it with CUDA events.
static bool run_prefix_sum_simple(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'a': global f32[N], read and written: random.
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
  Bytes += 2097152.0 * sizeof(float);
  BANKWISE_CHECK(launch_prefix_sum_simple(a, 1048576, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_prefix_sum_simple(a_ref);
  BANKWISE_CHECK(cudaMemcpy(a_img.data(), a, a_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 1048576; ++I) {
    const auto Got = bankwise::toHost(a_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, a_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "prefix_sum_simple: a[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(a_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_prefix_sum_simple(a, 1048576, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_prefix_sum_simple(a, 1048576, 0));
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
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"prefix_sum_simple\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace prefix_sum_simple

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
  Ok = prefix_sum_simple::run_prefix_sum_simple(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/prefix_sum_simple.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
