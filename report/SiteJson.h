// Access-site reports as JSON, in the one form every report uses (`bankwise
// analyze --json`, `bankwise compile --report`, the seed 001 pass sites of
// both), so a reader such as bench/verify sees the same keys everywhere.
// A renderer of the analysis's values: analyze's report and codegen's
// --report both call it.
#pragma once

#include "analysis/passes/KernelAnalysis.h"

#include <nlohmann/json.hpp>
#include <string>

namespace bankwise::report {

/// {"min", "mean", "max"} over warp executions; null when there are none.
nlohmann::json statsJson(const CostStats &S);

/// One site: location (as given: "file.bw:14:5"), array, space, access,
/// layout, elem_bytes, warp_executions, thread_accesses, data_dependent;
/// then its figures: congestion and groups, and sm90_wavefronts (shared) or
/// sm90_sectors and sm90_lines (global); for a data-dependent site instead
/// worst_congestion, expected_congestion_random and data_source. An atomic
/// has access "atomic", atomic (its name) and same_address_serialization
/// (docs/analysis.md, "Atomics"). Callers
/// add what only they know (codegen: added_by_codegen, device_space).
nlohmann::json siteJson(const AccessSiteReport &S, const std::string &Location);

} // namespace bankwise::report
