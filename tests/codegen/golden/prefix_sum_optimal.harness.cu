// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'prefix_sum_optimal': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_prefix_sum_optimal(std::vector<float> &s) {
  using Index = long long;
  constexpr Index NT = 1024;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 1; ++by)
  for (Index bx = 0; bx < 1; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index t_ = M - 1, t__end = (-1); t_ > t__end; t_ += (-1)) {
      const Index h = 1LL << t_;
      for (Index r = 0, r_end = (h + P - 1) / P; r < r_end; r += 1) {
        std::vector<Index> i(NT);
        for (Index t = 0; t < NT; ++t) {
          i[t] = r * P + t;
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (i[t] < h) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            s[h + i[t]] = s[2 * h + 2 * i[t]] + s[2 * h + 2 * i[t] + 1];
          }
        }
      }
      // sync: every thread finished the statements above (lockstep).
    }
    for (Index t_ = 0, t__end = M; t_ < t__end; t_ += 1) {
      const Index h = 1LL << t_;
      for (Index r = 0, r_end = (h + P - 1) / P; r < r_end; r += 1) {
        std::vector<Index> i(NT);
        for (Index t = 0; t < NT; ++t) {
          i[t] = r * P + t;
        }
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (i[t] < h) != 0;
          }
          std::vector<float> x(NT);
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            x[t] = s[h + i[t]];
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            s[2 * h + 2 * i[t] + 1] = x[t];
          }
          {
            std::vector<char> bw_then3(NT);
            for (Index t = 0; t < NT; ++t) {
              if (!bw_then2[t])
                continue;
              bw_then3[t] = ((2 * i[t] + 2) < (2 * h)) != 0;
            }
            for (Index t = 0; t < NT; ++t) {
              if (!bw_then3[t])
                continue;
              s[2 * h + 2 * i[t] + 2] = s[2 * h + 2 * i[t] + 2] + x[t];
            }
          }
        }
      }
      // sync: every thread finished the statements above (lockstep).
    }
  }
}

// Runs 'prefix_sum_optimal' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_prefix_sum_optimal, and times it with CUDA events.
static bool run_prefix_sum_optimal(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 's': global f32[2 * N], read and written: random.
  std::vector<float> s_img(2097152); // the device bytes
  std::memset(static_cast<void *>(s_img.data()), 0xFF, s_img.size() * sizeof(float));
  for (long long I = 0; I < 2097152; ++I)
    s_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> s_ref(2097152);
  for (long long I = 0; I < 2097152; ++I)
    s_ref[I] = bankwise::toHost(s_img[I]);
  float *s = nullptr;
  BANKWISE_CHECK(cudaMalloc(&s, s_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(s, s_img.data(), s_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 4194304.0 * sizeof(float);
  BANKWISE_CHECK(launch_prefix_sum_optimal(s, 2097152, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_prefix_sum_optimal(s_ref);
  BANKWISE_CHECK(cudaMemcpy(s_img.data(), s, s_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 2097152; ++I) {
    const auto Got = bankwise::toHost(s_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, s_ref[I], 1e-05)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "prefix_sum_optimal: s[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(s_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_prefix_sum_optimal(s, 2097152, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_prefix_sum_optimal(s, 2097152, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(s));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"prefix_sum_optimal\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace prefix_sum_optimal

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
  Ok = prefix_sum_optimal::run_prefix_sum_optimal(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/prefix_sum_optimal.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
