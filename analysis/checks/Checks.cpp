#include "analysis/checks/Checks.h"

#include "analysis/checks/BankConflictCheck.h"
#include "analysis/checks/UncoalescedCheck.h"

#include <fmt/format.h>

namespace bankwise {

const std::vector<CheckInfo> &allChecks() {
  static const std::vector<CheckInfo> Checks = {
      {"bankwise-bank-conflict", "shared accesses that take more wavefronts than their bytes need",
       checkBankConflicts},
      {"bankwise-uncoalesced", "global accesses that touch more sectors than their bytes need",
       checkUncoalesced},
  };
  return Checks;
}

std::string sizeCondition(const SizeRange &R) {
  if (R.Min == R.Max || R.MaxWhen.empty())
    return "";
  return fmt::format(" when {}", R.MaxWhen);
}

} // namespace bankwise
