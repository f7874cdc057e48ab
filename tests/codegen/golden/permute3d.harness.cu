// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'permute_021': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_021(const std::vector<float> &in, std::vector<float> &out, long long B, long long M, long long N) {
  using Index = long long;
  constexpr Index NT = 256;
  const long long bw_grid_x = bankwise::floorDiv(N + 31, 32), bw_grid_y = bankwise::floorDiv(M + 31, 32), bw_grid_z = B;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> m(NT);
      for (Index t = 0; t < NT; ++t) {
        m[t] = by * 32 + t / 32 % 8 + 8 * k;
      }
      std::vector<Index> n(NT);
      for (Index t = 0; t < NT; ++t) {
        n[t] = bx * 32 + t % 32;
      }
      {
        std::vector<char> bw_then1(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then1[t] = ((m[t] < M) && (n[t] < N)) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then1[t])
            continue;
          tile[(t / 32 % 8 + 8 * k) * 32 + t % 32] = in[(bz * M + m[t]) * N + n[t]];
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> n(NT);
      for (Index t = 0; t < NT; ++t) {
        n[t] = bx * 32 + t / 32 % 8 + 8 * k;
      }
      std::vector<Index> m(NT);
      for (Index t = 0; t < NT; ++t) {
        m[t] = by * 32 + t % 32;
      }
      {
        std::vector<char> bw_then2(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then2[t] = ((n[t] < N) && (m[t] < M)) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then2[t])
            continue;
          out[(bz * N + n[t]) * M + m[t]] = tile[t % 32 * 32 + (t / 32 % 8 + 8 * k)];
        }
      }
    }
  }
}

// CPU reference of 'permute_210': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_210(const std::vector<float> &in, std::vector<float> &out, long long B, long long M, long long N) {
  using Index = long long;
  constexpr Index NT = 256;
  const long long bw_grid_x = bankwise::floorDiv(N + 31, 32), bw_grid_y = bankwise::floorDiv(B + 31, 32), bw_grid_z = M;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> i(NT);
      for (Index t = 0; t < NT; ++t) {
        i[t] = by * 32 + t / 32 % 8 + 8 * k;
      }
      std::vector<Index> c(NT);
      for (Index t = 0; t < NT; ++t) {
        c[t] = bx * 32 + t % 32;
      }
      {
        std::vector<char> bw_then1(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then1[t] = ((i[t] < B) && (c[t] < N)) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then1[t])
            continue;
          tile[(t / 32 % 8 + 8 * k) * 32 + t % 32] = in[(i[t] * M + bz) * N + c[t]];
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> c(NT);
      for (Index t = 0; t < NT; ++t) {
        c[t] = bx * 32 + t / 32 % 8 + 8 * k;
      }
      std::vector<Index> i(NT);
      for (Index t = 0; t < NT; ++t) {
        i[t] = by * 32 + t % 32;
      }
      {
        std::vector<char> bw_then2(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then2[t] = ((c[t] < N) && (i[t] < B)) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then2[t])
            continue;
          out[(c[t] * M + bz) * B + i[t]] = tile[t % 32 * 32 + (t / 32 % 8 + 8 * k)];
        }
      }
    }
  }
}

// CPU reference of 'permute_102': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_permute_102(const std::vector<float> &in, std::vector<float> &out, long long B, long long M, long long N) {
  using Index = long long;
  constexpr Index NT = 256;
  const long long bw_grid_x = bankwise::floorDiv(N + 1023, 1024), bw_grid_y = M, bw_grid_z = B;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      std::vector<Index> n(NT);
      for (Index t = 0; t < NT; ++t) {
        n[t] = bx * 1024 + t + 256 * k;
      }
      {
        std::vector<char> bw_then1(NT);
        for (Index t = 0; t < NT; ++t) {
          bw_then1[t] = (n[t] < N) != 0;
        }
        for (Index t = 0; t < NT; ++t) {
          if (!bw_then1[t])
            continue;
          out[(by * B + bz) * N + n[t]] = in[(bz * M + by) * N + n[t]];
        }
      }
    }
  }
}

// Runs 'permute_021' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_permute_021, and times it with CUDA events.
static bool run_permute_021(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long B, long long M, long long N) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f32[B][M][N], read: random.
  if (B * M * N < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(B * M * N));
    return false;
  }
  std::vector<float> in_img(B * M * N); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(float));
  for (long long I = 0; I < B * M * N; ++I)
    in_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> in_ref(B * M * N);
  for (long long I = 0; I < B * M * N; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  float *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(B * M * N) * sizeof(float);
  // 'out': global f32[B][N][M], written only: poisoned.
  if (B * N * M < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(B * N * M));
    return false;
  }
  std::vector<float> out_img(B * N * M); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(B * N * M);
  for (long long I = 0; I < B * N * M; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(B * N * M) * sizeof(float);
  BANKWISE_CHECK(launch_permute_021(in, in_img.size(), out, out_img.size(), B, M, N, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_021(in_ref, out_ref, B, M, N);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < B * N * M; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_021: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_021(in, in_img.size(), out, out_img.size(), B, M, N, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_021(in, in_img.size(), out, out_img.size(), B, M, N, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(in));
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_021\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'permute_210' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_permute_210, and times it with CUDA events.
static bool run_permute_210(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long B, long long M, long long N) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f32[B][M][N], read: random.
  if (B * M * N < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(B * M * N));
    return false;
  }
  std::vector<float> in_img(B * M * N); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(float));
  for (long long I = 0; I < B * M * N; ++I)
    in_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> in_ref(B * M * N);
  for (long long I = 0; I < B * M * N; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  float *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(B * M * N) * sizeof(float);
  // 'out': global f32[N][M][B], written only: poisoned.
  if (N * M * B < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(N * M * B));
    return false;
  }
  std::vector<float> out_img(N * M * B); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(N * M * B);
  for (long long I = 0; I < N * M * B; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(N * M * B) * sizeof(float);
  BANKWISE_CHECK(launch_permute_210(in, in_img.size(), out, out_img.size(), B, M, N, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_210(in_ref, out_ref, B, M, N);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < N * M * B; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_210: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_210(in, in_img.size(), out, out_img.size(), B, M, N, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_210(in, in_img.size(), out, out_img.size(), B, M, N, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(in));
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_210\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'permute_102' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_permute_102, and times it with CUDA events.
static bool run_permute_102(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long B, long long M, long long N) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f32[B][M][N], read: random.
  if (B * M * N < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(B * M * N));
    return false;
  }
  std::vector<float> in_img(B * M * N); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(float));
  for (long long I = 0; I < B * M * N; ++I)
    in_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> in_ref(B * M * N);
  for (long long I = 0; I < B * M * N; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  float *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(B * M * N) * sizeof(float);
  // 'out': global f32[M][B][N], written only: poisoned.
  if (M * B * N < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(M * B * N));
    return false;
  }
  std::vector<float> out_img(M * B * N); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(M * B * N);
  for (long long I = 0; I < M * B * N; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(M * B * N) * sizeof(float);
  BANKWISE_CHECK(launch_permute_102(in, in_img.size(), out, out_img.size(), B, M, N, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_permute_102(in_ref, out_ref, B, M, N);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < M * B * N; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "permute_102: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_permute_102(in, in_img.size(), out, out_img.size(), B, M, N, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_permute_102(in, in_img.size(), out, out_img.size(), B, M, N, 0));
      BANKWISE_CHECK(cudaEventRecord(Stop, 0));
      BANKWISE_CHECK(cudaEventSynchronize(Stop));
      float Elapsed = 0;
      BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));
      Ms.push_back(Elapsed);
    }
    BANKWISE_CHECK(cudaEventDestroy(Start));
    BANKWISE_CHECK(cudaEventDestroy(Stop));
  }
  BANKWISE_CHECK(cudaFree(in));
  BANKWISE_CHECK(cudaFree(out));
  const double Median = Ms.empty() ? 0 : bankwise::median(Ms);
  const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"permute_102\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace permute3d

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

// Harness: `./a.out [--seed S] [--runs R] [--check-only] [B=VALUE] [M=VALUE] [N=VALUE]` prints one JSON line and exits
// with 0 when every kernel matches its CPU reference, 1 when one does not.
int main(int argc, char **argv) {
  unsigned long long Seed = 1ULL;
  int Runs = 21;
  bool Time = true;
  // Runtime sizes: NAME=VALUE arguments, by default the sizes the predictions were made at.
  long long B = 64LL;
  long long M = 64LL;
  long long N = 64LL;
  for (int I = 1; I < argc; ++I) {
    const std::string A = argv[I];
    if (A == "--seed" && I + 1 < argc)
      Seed = std::strtoull(argv[++I], nullptr, 10);
    else if (A == "--runs" && I + 1 < argc)
      Runs = std::max(20, std::atoi(argv[++I]));
    else if (A == "--check-only")
      Time = false;
    else if (bw_size_argument(A, "B", B))
      ;
    else if (bw_size_argument(A, "M", M))
      ;
    else if (bw_size_argument(A, "N", N))
      ;
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--runs R (>= 20)] [--check-only] [B=VALUE] [M=VALUE] [N=VALUE]\n", argv[0]);
      return 2;
    }
  }
  int Device = 0;
  BANKWISE_CHECK(cudaGetDevice(&Device));
  cudaDeviceProp Prop;
  BANKWISE_CHECK(cudaGetDeviceProperties(&Prop, Device));
  std::string Json;
  bool Ok = true;
  Ok = permute3d::run_permute_021(Seed, Runs, Time, Json, B, M, N) && Ok;
  Json += ",";
  Ok = permute3d::run_permute_210(Seed, Runs, Time, Json, B, M, N) && Ok;
  Json += ",";
  Ok = permute3d::run_permute_102(Seed, Runs, Time, Json, B, M, N) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"sizes\":{\"B\":%lld,\"M\":%lld,\"N\":%lld},\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/permute3d.bw\"", Prop.name, Seed, B, M, N, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
