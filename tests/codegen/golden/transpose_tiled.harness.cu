// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'transpose': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose(const std::vector<float> &in, std::vector<float> &out) {
  using Index = long long;
  constexpr Index NT = 256;
  for (Index bz = 0; bz < 1; ++bz)
  for (Index by = 0; by < 256; ++by)
  for (Index bx = 0; bx < 256; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(1024); // shared, per block
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index t = 0; t < NT; ++t) {
        tile[(t / 32 % 8 + 8 * k) * 32 + t % 32] = in[(by * 32 + t / 32 % 8 + 8 * k) * 8192 + (bx * 32 + t % 32)];
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index t = 0; t < NT; ++t) {
        out[(bx * 32 + t / 32 % 8 + 8 * k) * 8192 + (by * 32 + t % 32)] = tile[t % 32 * 32 + (t / 32 % 8 + 8 * k)];
      }
    }
  }
}

// Runs 'transpose' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose, and times it with CUDA events.
static bool run_transpose(unsigned long long Seed, int Runs, bool Time, std::string &Json) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f32[N][N], read: random.
  std::vector<float> in_img(67108864); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(float));
  for (long long I = 0; I < 67108864; ++I)
    in_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> in_ref(67108864);
  for (long long I = 0; I < 67108864; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  float *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 67108864.0 * sizeof(float);
  // 'out': global f32[N][N], written only: poisoned.
  std::vector<float> out_img(67108864); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(67108864);
  for (long long I = 0; I < 67108864; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 67108864.0 * sizeof(float);
  BANKWISE_CHECK(launch_transpose(in, 67108864, out, 67108864, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose(in_ref, out_ref);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < 67108864; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose(in, 67108864, out, 67108864, 0));
    for (int R = 0; R < Runs; ++R) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose(in, 67108864, out, 67108864, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace transpose_tiled

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
  Ok = transpose_tiled::run_transpose(Seed, Runs, Time, Json) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/transpose_tiled.bw\"", Prop.name, Seed, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
