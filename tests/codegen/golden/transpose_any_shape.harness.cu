// ---- harness: CPU references, checked runs and main (--harness) ----

// CPU reference of 'transpose_f32': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose_f32(const std::vector<float> &in, std::vector<float> &out, long long R, long long C) {
  using Index = long long;
  constexpr Index NT = 512;
  const long long bw_grid_x = bankwise::floorDiv(R + 7 + 63, 64), bw_grid_y = bankwise::floorDiv(C + 63, 64), bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(4544); // shared, per block
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - 7 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t % 32 + 32 * j;
        }
        std::vector<Index> row(NT);
        for (Index t = 0; t < NT; ++t) {
          row[t] = r[t] - bx * 64 + bankwise::floorMod(c[t] * R + bx * 64, 8);
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (((((((t / 32 % 16 + 16 * k) < 71) && (row[t] >= 0)) && (row[t] < 64)) && (r[t] >= 0)) && (r[t] < R)) && (c[t] < C)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            tile[(t / 32 % 16 + 16 * k) * 64 + (t % 32 + 32 * j)] = in[r[t] * C + c[t]];
          }
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> sh(NT);
        for (Index t = 0; t < NT; ++t) {
          sh[t] = bankwise::floorMod(c[t] * R + bx * 64, 8);
        }
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - sh[t] + t % 32 + 32 * j;
        }
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (((c[t] < C) && (r[t] >= 0)) && (r[t] < R)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            out[c[t] * R + r[t]] = tile[(t % 32 + 32 * j + 7 - sh[t]) * 64 + (t / 32 % 16 + 16 * k)];
          }
        }
      }
    }
  }
}

// CPU reference of 'transpose_f64': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose_f64(const std::vector<double> &in, std::vector<double> &out, long long R, long long C) {
  using Index = long long;
  constexpr Index NT = 512;
  const long long bw_grid_x = bankwise::floorDiv(R + 3 + 63, 64), bw_grid_y = bankwise::floorDiv(C + 63, 64), bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<double> tile(4288); // shared, per block
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - 3 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t % 32 + 32 * j;
        }
        std::vector<Index> row(NT);
        for (Index t = 0; t < NT; ++t) {
          row[t] = r[t] - bx * 64 + bankwise::floorMod(c[t] * R + bx * 64, 4);
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (((((((t / 32 % 16 + 16 * k) < 67) && (row[t] >= 0)) && (row[t] < 64)) && (r[t] >= 0)) && (r[t] < R)) && (c[t] < C)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            tile[(t / 32 % 16 + 16 * k) * 64 + (t % 32 + 32 * j)] = in[r[t] * C + c[t]];
          }
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> sh(NT);
        for (Index t = 0; t < NT; ++t) {
          sh[t] = bankwise::floorMod(c[t] * R + bx * 64, 4);
        }
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - sh[t] + t % 32 + 32 * j;
        }
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (((c[t] < C) && (r[t] >= 0)) && (r[t] < R)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            out[c[t] * R + r[t]] = tile[(t % 32 + 32 * j + 3 - sh[t]) * 64 + (t / 32 % 16 + 16 * k)];
          }
        }
      }
    }
  }
}

// CPU reference of 'transpose_f16': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose_f16(const std::vector<float> &in, std::vector<float> &out, long long R, long long C) {
  using Index = long long;
  constexpr Index NT = 512;
  const long long bw_grid_x = bankwise::floorDiv(R + 15 + 63, 64), bw_grid_y = bankwise::floorDiv(C + 63, 64), bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<float> tile(5056); // shared, per block
    for (Index k = 0, k_end = 5; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - 15 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t % 32 + 32 * j;
        }
        std::vector<Index> row(NT);
        for (Index t = 0; t < NT; ++t) {
          row[t] = r[t] - bx * 64 + bankwise::floorMod(c[t] * R + bx * 64, 16);
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (((((((t / 32 % 16 + 16 * k) < 79) && (row[t] >= 0)) && (row[t] < 64)) && (r[t] >= 0)) && (r[t] < R)) && (c[t] < C)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            tile[(t / 32 % 16 + 16 * k) * 64 + (t % 32 + 32 * j)] = in[r[t] * C + c[t]];
          }
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> sh(NT);
        for (Index t = 0; t < NT; ++t) {
          sh[t] = bankwise::floorMod(c[t] * R + bx * 64, 16);
        }
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - sh[t] + t % 32 + 32 * j;
        }
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (((c[t] < C) && (r[t] >= 0)) && (r[t] < R)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            out[c[t] * R + r[t]] = tile[(t % 32 + 32 * j + 15 - sh[t]) * 64 + (t / 32 % 16 + 16 * k)];
          }
        }
      }
    }
  }
}

// CPU reference of 'transpose_i8': the .bw semantics run directly on logical (row-major)
// arrays, one block after another; inside a block each statement runs for every
// thread before the next one starts (statement-level lockstep), which is exact
// for race-free programs. Per-thread locals are arrays indexed by the thread t.
static void reference_transpose_i8(const std::vector<std::int8_t> &in, std::vector<std::int8_t> &out, long long R, long long C) {
  using Index = long long;
  constexpr Index NT = 512;
  const long long bw_grid_x = bankwise::floorDiv(R + 31 + 63, 64), bw_grid_y = bankwise::floorDiv(C + 63, 64), bw_grid_z = 1;
  for (Index bz = 0; bz < bw_grid_z; ++bz)
  for (Index by = 0; by < bw_grid_y; ++by)
  for (Index bx = 0; bx < bw_grid_x; ++bx) {
    (void)bx, (void)by, (void)bz;
    std::vector<std::int8_t> tile(6080); // shared, per block
    for (Index k = 0, k_end = 6; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - 31 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t % 32 + 32 * j;
        }
        std::vector<Index> row(NT);
        for (Index t = 0; t < NT; ++t) {
          row[t] = r[t] - bx * 64 + bankwise::floorMod(c[t] * R + bx * 64, 32);
        }
        {
          std::vector<char> bw_then1(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then1[t] = (((((((t / 32 % 16 + 16 * k) < 95) && (row[t] >= 0)) && (row[t] < 64)) && (r[t] >= 0)) && (r[t] < R)) && (c[t] < C)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then1[t])
              continue;
            tile[(t / 32 % 16 + 16 * k) * 64 + (t % 32 + 32 * j)] = in[r[t] * C + c[t]];
          }
        }
      }
    }
    // sync: every thread finished the statements above (lockstep).
    for (Index k = 0, k_end = 4; k < k_end; k += 1) {
      for (Index j = 0, j_end = 2; j < j_end; j += 1) {
        std::vector<Index> c(NT);
        for (Index t = 0; t < NT; ++t) {
          c[t] = by * 64 + t / 32 % 16 + 16 * k;
        }
        std::vector<Index> sh(NT);
        for (Index t = 0; t < NT; ++t) {
          sh[t] = bankwise::floorMod(c[t] * R + bx * 64, 32);
        }
        std::vector<Index> r(NT);
        for (Index t = 0; t < NT; ++t) {
          r[t] = bx * 64 - sh[t] + t % 32 + 32 * j;
        }
        {
          std::vector<char> bw_then2(NT);
          for (Index t = 0; t < NT; ++t) {
            bw_then2[t] = (((c[t] < C) && (r[t] >= 0)) && (r[t] < R)) != 0;
          }
          for (Index t = 0; t < NT; ++t) {
            if (!bw_then2[t])
              continue;
            out[c[t] * R + r[t]] = tile[(t % 32 + 32 * j + 31 - sh[t]) * 64 + (t / 32 % 16 + 16 * k)];
          }
        }
      }
    }
  }
}

// Runs 'transpose_f32' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose_f32, and times it with CUDA events.
static bool run_transpose_f32(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long R, long long C) {
  bankwise::HarnessRng Rng{Seed + 0ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f32[R][C], read: random.
  if (R * C < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(R * C));
    return false;
  }
  std::vector<float> in_img(R * C); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(float));
  for (long long I = 0; I < R * C; ++I)
    in_img[I] = bankwise::randomElement<float>(Rng);
  std::vector<float> in_ref(R * C);
  for (long long I = 0; I < R * C; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  float *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(R * C) * sizeof(float);
  // 'out': global f32[C][R], written only: poisoned.
  if (C * R < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(C * R));
    return false;
  }
  std::vector<float> out_img(C * R); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(float));
  std::vector<float> out_ref(C * R);
  for (long long I = 0; I < C * R; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  float *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(float)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(float), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(C * R) * sizeof(float);
  BANKWISE_CHECK(launch_transpose_f32(in, in_img.size(), out, out_img.size(), R, C, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose_f32(in_ref, out_ref, R, C);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < C * R; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose_f32: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose_f32(in, in_img.size(), out, out_img.size(), R, C, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose_f32(in, in_img.size(), out, out_img.size(), R, C, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose_f32\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'transpose_f64' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose_f64, and times it with CUDA events.
static bool run_transpose_f64(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long R, long long C) {
  bankwise::HarnessRng Rng{Seed + 1ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f64[R][C], read: random.
  if (R * C < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(R * C));
    return false;
  }
  std::vector<double> in_img(R * C); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(double));
  for (long long I = 0; I < R * C; ++I)
    in_img[I] = bankwise::randomElement<double>(Rng);
  std::vector<double> in_ref(R * C);
  for (long long I = 0; I < R * C; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  double *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(R * C) * sizeof(double);
  // 'out': global f64[C][R], written only: poisoned.
  if (C * R < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(C * R));
    return false;
  }
  std::vector<double> out_img(C * R); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(double));
  std::vector<double> out_ref(C * R);
  for (long long I = 0; I < C * R; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  double *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(double)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(double), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(C * R) * sizeof(double);
  BANKWISE_CHECK(launch_transpose_f64(in, in_img.size(), out, out_img.size(), R, C, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose_f64(in_ref, out_ref, R, C);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < C * R; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose_f64: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose_f64(in, in_img.size(), out, out_img.size(), R, C, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose_f64(in, in_img.size(), out, out_img.size(), R, C, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose_f64\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'transpose_f16' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose_f16, and times it with CUDA events.
static bool run_transpose_f16(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long R, long long C) {
  bankwise::HarnessRng Rng{Seed + 2ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global f16[R][C], read: random.
  if (R * C < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(R * C));
    return false;
  }
  std::vector<__half> in_img(R * C); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(__half));
  for (long long I = 0; I < R * C; ++I)
    in_img[I] = bankwise::randomElement<__half>(Rng);
  std::vector<float> in_ref(R * C);
  for (long long I = 0; I < R * C; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  __half *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(__half)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(__half), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(R * C) * sizeof(__half);
  // 'out': global f16[C][R], written only: poisoned.
  if (C * R < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(C * R));
    return false;
  }
  std::vector<__half> out_img(C * R); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(__half));
  std::vector<float> out_ref(C * R);
  for (long long I = 0; I < C * R; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  __half *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(__half)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(__half), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(C * R) * sizeof(__half);
  BANKWISE_CHECK(launch_transpose_f16(in, in_img.size(), out, out_img.size(), R, C, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose_f16(in_ref, out_ref, R, C);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < C * R; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose_f16: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose_f16(in, in_img.size(), out, out_img.size(), R, C, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose_f16(in, in_img.size(), out, out_img.size(), R, C, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose_f16\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

// Runs 'transpose_i8' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks
// every element it writes against reference_transpose_i8, and times it with CUDA events.
static bool run_transpose_i8(unsigned long long Seed, int Runs, bool Time, std::string &Json, long long R, long long C) {
  bankwise::HarnessRng Rng{Seed + 3ULL};
  std::size_t Checked = 0, Mismatches = 0;
  double Bytes = 0;
  // 'in': global i8[R][C], read: random.
  if (R * C < 1) {
    std::fprintf(stderr, "harness: these sizes give 'in' %lld elements\n", static_cast<long long>(R * C));
    return false;
  }
  std::vector<std::int8_t> in_img(R * C); // the device bytes
  std::memset(static_cast<void *>(in_img.data()), 0xFF, in_img.size() * sizeof(std::int8_t));
  for (long long I = 0; I < R * C; ++I)
    in_img[I] = bankwise::randomElement<std::int8_t>(Rng);
  std::vector<std::int8_t> in_ref(R * C);
  for (long long I = 0; I < R * C; ++I)
    in_ref[I] = bankwise::toHost(in_img[I]);
  std::int8_t *in = nullptr;
  BANKWISE_CHECK(cudaMalloc(&in, in_img.size() * sizeof(std::int8_t)));
  BANKWISE_CHECK(cudaMemcpy(in, in_img.data(), in_img.size() * sizeof(std::int8_t), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(R * C) * sizeof(std::int8_t);
  // 'out': global i8[C][R], written only: poisoned.
  if (C * R < 1) {
    std::fprintf(stderr, "harness: these sizes give 'out' %lld elements\n", static_cast<long long>(C * R));
    return false;
  }
  std::vector<std::int8_t> out_img(C * R); // the device bytes
  std::memset(static_cast<void *>(out_img.data()), 0xFF, out_img.size() * sizeof(std::int8_t));
  std::vector<std::int8_t> out_ref(C * R);
  for (long long I = 0; I < C * R; ++I)
    out_ref[I] = bankwise::toHost(out_img[I]);
  std::int8_t *out = nullptr;
  BANKWISE_CHECK(cudaMalloc(&out, out_img.size() * sizeof(std::int8_t)));
  BANKWISE_CHECK(cudaMemcpy(out, out_img.data(), out_img.size() * sizeof(std::int8_t), cudaMemcpyHostToDevice));
  Bytes += 1.0 * static_cast<double>(C * R) * sizeof(std::int8_t);
  BANKWISE_CHECK(launch_transpose_i8(in, in_img.size(), out, out_img.size(), R, C, 0));
  BANKWISE_CHECK(cudaDeviceSynchronize());
  reference_transpose_i8(in_ref, out_ref, R, C);
  BANKWISE_CHECK(cudaMemcpy(out_img.data(), out, out_img.size() * sizeof(std::int8_t), cudaMemcpyDeviceToHost));
  for (long long I = 0; I < C * R; ++I) {
    const auto Got = bankwise::toHost(out_img[I]);
    ++Checked;
    if (!bankwise::sameValue(Got, out_ref[I], 0)) {
      if (Mismatches < 5)
        std::fprintf(stderr, "transpose_i8: out[%lld] is %s, the reference says %s\n", I, bankwise::showValue(Got).c_str(), bankwise::showValue(out_ref[I]).c_str());
      ++Mismatches;
    }
  }
  std::vector<double> Ms;
  if (Time) {
    cudaEvent_t Start, Stop;
    BANKWISE_CHECK(cudaEventCreate(&Start));
    BANKWISE_CHECK(cudaEventCreate(&Stop));
    for (int W = 0; W < 3; ++W) // warm-up
      BANKWISE_CHECK(launch_transpose_i8(in, in_img.size(), out, out_img.size(), R, C, 0));
    for (int bw_run = 0; bw_run < Runs; ++bw_run) {
      BANKWISE_CHECK(cudaEventRecord(Start, 0));
      BANKWISE_CHECK(launch_transpose_i8(in, in_img.size(), out, out_img.size(), R, C, 0));
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
  std::snprintf(Buf, sizeof Buf, "{\"kernel\":\"transpose_i8\",\"correct\":%s,\"checked\":%zu,\"mismatches\":%zu,\"runs\":%zu,\"warmup\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"bytes\":%.0f,\"gbps\":%.3f}",
    Mismatches == 0 ? "true" : "false", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,
    Median > 0 ? Bytes / (Median * 1e6) : 0.0);
  Json += Buf;
  return Mismatches == 0;
}

} // namespace transpose_any_shape

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

// Harness: `./a.out [--seed S] [--runs R] [--check-only] [R=VALUE] [C=VALUE]` prints one JSON line and exits
// with 0 when every kernel matches its CPU reference, 1 when one does not.
int main(int argc, char **argv) {
  unsigned long long Seed = 1ULL;
  int Runs = 21;
  bool Time = true;
  // Runtime sizes: NAME=VALUE arguments, by default the sizes the predictions were made at.
  long long R = 64LL;
  long long C = 64LL;
  for (int I = 1; I < argc; ++I) {
    const std::string A = argv[I];
    if (A == "--seed" && I + 1 < argc)
      Seed = std::strtoull(argv[++I], nullptr, 10);
    else if (A == "--runs" && I + 1 < argc)
      Runs = std::max(20, std::atoi(argv[++I]));
    else if (A == "--check-only")
      Time = false;
    else if (bw_size_argument(A, "R", R))
      ;
    else if (bw_size_argument(A, "C", C))
      ;
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--runs R (>= 20)] [--check-only] [R=VALUE] [C=VALUE]\n", argv[0]);
      return 2;
    }
  }
  int Device = 0;
  BANKWISE_CHECK(cudaGetDevice(&Device));
  cudaDeviceProp Prop;
  BANKWISE_CHECK(cudaGetDeviceProperties(&Prop, Device));
  std::string Json;
  bool Ok = true;
  Ok = transpose_any_shape::run_transpose_f32(Seed, Runs, Time, Json, R, C) && Ok;
  Json += ",";
  Ok = transpose_any_shape::run_transpose_f64(Seed, Runs, Time, Json, R, C) && Ok;
  Json += ",";
  Ok = transpose_any_shape::run_transpose_f16(Seed, Runs, Time, Json, R, C) && Ok;
  Json += ",";
  Ok = transpose_any_shape::run_transpose_i8(Seed, Runs, Time, Json, R, C) && Ok;
  std::printf("{\"program\":%s,\"device\":\"%s\",\"seed\":%llu,\"sizes\":{\"R\":%lld,\"C\":%lld},\"correct\":%s,\"kernels\":[%s]}\n",
              "\"samples/transpose_any_shape.bw\"", Prop.name, Seed, R, C, Ok ? "true" : "false", Json.c_str());
  return Ok ? 0 : 1;
}
