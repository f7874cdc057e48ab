// Device code: the __global__ function of a kernel, its launch function and
// the launch-time checks of runtime sizes.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

//===-- Kernels ----------------------------------------------------------------===//

/// One line per access site: where, what, the layout and the predicted cost.
std::string siteComment(const AccessSiteReport &S, const KernelFacts &F) {
  std::string What = fmt::format("{} {} of '{}' [{}]", locText(S.Loc), accessName(S), S.Array, S.Layout);
  std::string Where = std::string(ir::spelling(S.Space));
  if (F.ArrayIndex.count(S.Array) && F.array(S.Array).Demoted)
    Where += ", kept in global memory by codegen (the prediction is for shared)";
  // Under a branch or loop bound that reads data: the figures count every
  // lane that reaches the access (the worst case).
  const std::string Guard =
      !S.DataGuarded ? ""
      : S.DataDependent
          ? fmt::format("; run by the lanes that data in '{}' picks", S.GuardSource)
          : fmt::format("; worst case, every lane taking the branch on '{}' (DMM congestion {:.3g} expected at "
                        "probability 1/2)",
                        S.GuardSource, S.ExpectedGuardCongestion);
  // An atomic: the most lanes of a warp on one address, which take turns.
  const std::string Serial =
      S.IsAtomic ? fmt::format("; same-address serialization {}", S.Serialization.str()) : "";
  if (S.DataDependent)
    return fmt::format("{} ({}): data-dependent on '{}', worst congestion {}, expected {:.3g} "
                       "for random indices{}",
                       What, Where, S.DataSource, S.WorstCongestion, S.ExpectedRapCongestion, Guard);
  if (S.Space == ir::MemSpace::Shared) {
    // The DMM counts element indices mod w; on other than 4-byte elements
    // that is not sm_90's bank count, so say which is which (a CUDA reader
    // takes "congestion 2" beside "wavefronts 1" for a bank conflict).
    const bool Words = !F.ArrayIndex.count(S.Array) || ir::byteSize(F.array(S.Array).Decl->Elem) == 4;
    return fmt::format("{} ({}): sm_90 wavefronts {}; DMM congestion {}{}{}{}", What, Where, S.Wavefronts.str(),
                       S.Congestion.str(),
                       S.IsAtomic ? " (lanes per bank, repeats counted)"
                       : Words    ? ""
                                  : " (the papers' model: element indices mod w, not 4-byte banks)",
                       Serial, Guard);
  }
  return fmt::format("{} ({}): sm_90 sectors {}, lines {}; UMM groups {}{}{}", What, Where,
                     S.Sectors.str(), S.Lines.str(), S.Groups.str(), Serial, Guard);
}


void KernelEmitter::siteComments(int Indent, const Stmt &St) {
  // The statement's sites: its target, then every read in its expressions.
  std::vector<const ir::ArrayRead *> Nodes;
  auto Reads = [&](const Expr &E) {
    ir::forEachSubexpr(E, [&](const Expr &X) {
      if (const auto *R = X.as<ir::ArrayRead>())
        Nodes.push_back(R);
      if (const auto *T = ir::atomicTarget(X))
        Nodes.push_back(T);
    });
  };
  if (const auto *A = St.as<ir::Assign>()) {
    if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target)) {
      Nodes.push_back(R);
      for (const Expr &I : R->Indices)
        Reads(I);
    }
    Reads(A->Value);
  } else if (const auto *L = St.as<ir::Let>()) {
    Reads(L->Init);
  } else if (const auto *X = St.as<ir::ExprStmt>()) {
    Reads(X->Value);
  } else if (const auto *Fo = St.as<ir::For>()) {
    Reads(Fo->Begin);
    Reads(Fo->End);
  } else if (const auto *I = St.as<ir::If>()) {
    Reads(I->Cond);
  } else if (const auto *W = St.as<ir::While>()) {
    Reads(W->Cond);
  }
  std::set<const AccessSiteReport *> Done;
  std::vector<const AccessSiteReport *> List;
  for (const ir::ArrayRead *N : Nodes)
    if (auto It = Sites.find(N); It != Sites.end())
      for (const AccessSiteReport *S : It->second)
        if (Done.insert(S).second)
          List.push_back(S);
  std::stable_sort(List.begin(), List.end(), [](const AccessSiteReport *A, const AccessSiteReport *B) {
    return std::pair(A->Loc.Line, A->Loc.Col) < std::pair(B->Loc.Line, B->Loc.Col);
  });
  for (const AccessSiteReport *S : List)
    line(Indent, "// " + siteComment(*S, F));
}

std::string KernelEmitter::declType(const LetInfo &L, Mode M) const {
  switch (L.Class.K) {
  case VClass::Int: // a typed local keeps its type, as CUDA's `int acc`
    return L.Decl->Type ? scalarType(L.Decl->Type->Scalar) : "Index";
  case VClass::Copy:
    return M == Mode::Host ? hostType(L.Class.Elem) : devType(L.Class.Elem);
  case VClass::Compute:
    return L.Class.Double ? "double" : "float";
  }
  return "Index";
}

/// `constexpr bankwise::PadLayout<32, 1> tile_layout{};` or a RAP with its
/// packed shift registers.
std::string KernelEmitter::layoutObject(const ArrayPlan &A) const {
  const std::int64_t C = A.Decl->Shape.back();
  switch (A.Lay.Kind) {
  case LayoutKind::Raw:
    return fmt::format("constexpr bankwise::RawLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Pad:
    return fmt::format("constexpr bankwise::PadLayout<{}, {}> {}_layout{{}};", C, A.Lay.Pad, A.Name);
  case LayoutKind::Xor:
    return fmt::format("constexpr bankwise::XorLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Diagonal:
    return fmt::format("constexpr bankwise::DiagonalLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Rap: {
    int Bits = 1;
    while ((std::int64_t(1) << Bits) < C)
      ++Bits;
    const int PerWord = 32 / Bits;
    const std::int64_t Words = (C + PerWord - 1) / PerWord;
    std::vector<std::uint32_t> W(static_cast<std::size_t>(Words), 0);
    for (std::int64_t I = 0; I < C; ++I)
      W[static_cast<std::size_t>(I / PerWord)] |= static_cast<std::uint32_t>(A.Lay.Table[static_cast<std::size_t>(I)])
                                                  << (Bits * (I % PerWord));
    std::vector<std::string> Hex;
    for (std::uint32_t X : W)
      Hex.push_back(fmt::format("0x{:08x}u", X));
    return fmt::format("const bankwise::RapLayout<{}, {}, {}> {}_layout{{{{{}}}}};", C, Bits, Words,
                       A.Name, fmt::join(Hex, ", "));
  }
  default:
    throw UserError(A.Decl->Loc, fmt::format("codegen: layout {} is not supported", A.LayoutName));
  }
}

void KernelEmitter::emitDeviceArray(int Indent, const ArrayPlan &A) {
  const std::string T = devType(A.Decl->Elem);
  if (A.Decl->ViewOf) { // a pointer into its array, read (and written) in vectors
    const ArrayPlan &B = F.array(*A.Decl->ViewOf);
    const char *Const = B.Written ? "" : "const ";
    line(Indent, fmt::format("[[maybe_unused]] {}{} *const {} = reinterpret_cast<{}{} *>({}); // view of '{}' as {}: "
                             "{}-byte accesses",
                             Const, T, A.Name, Const, T, B.Name, B.Decl->Name, ir::spelling(A.Decl->Elem),
                             ir::byteSize(A.Decl->Elem)));
    return;
  }
  if (A.Local) {
    line(Indent, fmt::format("{} {}[{}]; // local {}", T, A.Name, A.Decl->numElements(),
                             ir::printArrayType(*A.Decl)));
    return;
  }
  std::string Why = A.Lay.Kind == LayoutKind::Raw
                        ? fmt::format("layout {}", A.LayoutName)
                        : fmt::format("layout {} (analysis/models/Layout.h)", A.LayoutName);
  for (const LayoutDecision &D : Mod.Pipe.Layouts)
    // One declaration in a generic kernel is an array of each instance: the
    // decision is this kernel's when it counted this kernel's sites.
    if (D.Array == A.Decl->Name && D.Loc.Line == A.Decl->Loc.Line && D.Loc.Col == A.Decl->Loc.Col &&
        D.Loc.File == A.Decl->Loc.File && D.Chosen < D.Candidates.size() &&
        std::find(D.Kernels.begin(), D.Kernels.end(), F.K.Name) != D.Kernels.end())
      for (const LayoutCandidate &C : D.Candidates)
        if (C.Name == "raw") {
          const LayoutCandidate &Ch = D.Candidates[D.Chosen];
          if (D.MeasuredAt.empty())
            Why += fmt::format("; chosen by layout auto: {} {:.6g}, raw {:.6g}", D.Metric, Ch.Cost, C.Cost);
          else // over size samples: per warp access, pooled and at the worst sample
            Why += fmt::format("; chosen by layout auto over {} sizes: {} per access {:.3g} (worst {:.3g}), raw "
                               "{:.3g} (worst {:.3g})",
                               D.Samples, D.Metric,
                               D.Executions ? Ch.Cost / static_cast<double>(D.Executions) : 0.0, Ch.Worst,
                               D.Executions ? C.Cost / static_cast<double>(D.Executions) : 0.0, C.Worst);
        }
  if (A.InShared) {
    if (F.UseDynamic)
      line(Indent, fmt::format("{} *const {} = reinterpret_cast<{} *>(bw_smem + {}); // {}", T, A.Name,
                               T, A.SmemOffset, Why));
    else
      line(Indent, fmt::format("__shared__ {}{} {}[{}]; // {}", A.HasView ? "__align__(16) " : "", T, A.Name,
                               A.footprint(), Why));
  }
  if (A.usesLayoutObject())
    line(Indent, layoutObject(A));
}

bool KernelEmitter::unrollsLocals(const ir::For &Fo) const {
  // Constant bounds and step, at most 64 trips, and a local array indexed
  // by the loop variable in the body (read or written).
  const auto *Begin = Fo.Begin.as<ir::IntLit>(), *End = Fo.End.as<ir::IntLit>();
  const auto *Step = Fo.Step ? Fo.Step->as<ir::IntLit>() : nullptr;
  if (!Begin || !End || (Fo.Step && (!Step || Step->Value <= 0)))
    return false;
  if ((End->Value - Begin->Value) / (Step ? Step->Value : 1) > 64)
    return false;
  auto Local = [&](const ir::ArrayRead &R) {
    if (!F.ArrayIndex.count(R.Array) || !F.array(R.Array).Local)
      return false;
    return std::any_of(R.Indices.begin(), R.Indices.end(), [&](const Expr &I) {
      return ir::anySubexpr(I, [&](const Expr &X) {
        const auto *V = X.as<ir::VarRef>();
        return V && V->Kind == ir::VarKind::Loop && V->Name == Fo.Var;
      });
    });
  };
  bool Found = false;
  ir::forEachStmtExpr(Fo.Body, [&](const Expr &E) {
    Found = Found || ir::anySubexpr(E, [&](const Expr &X) {
              const auto *R = X.as<ir::ArrayRead>();
              return R && Local(*R);
            });
  });
  std::function<void(const ir::Block &)> Targets = [&](const ir::Block &B) {
    for (const Stmt &St : B) {
      if (const auto *A = St.as<ir::Assign>(); A && std::holds_alternative<ir::ArrayRead>(A->Target))
        Found = Found || Local(std::get<ir::ArrayRead>(A->Target));
      else if (const auto *Inner = St.as<ir::For>())
        Targets(Inner->Body);
      else if (const auto *W = St.as<ir::While>())
        Targets(W->Body);
      else if (const auto *I = St.as<ir::If>()) {
        Targets(I->Then);
        Targets(I->Else);
      }
    }
  };
  Targets(Fo.Body);
  return Found;
}

void KernelEmitter::deviceBlock(const ir::Block &B, int Indent) {
  for (const Stmt &St : B) {
    siteComments(Indent, St);
    if (const auto *L = St.as<ir::Let>()) {
      const LetInfo &Info = F.let(L);
      line(Indent, fmt::format("{} {} = {};", declType(Info, Mode::Device), cName(Info.Decl->Name),
                               Dev.value(L->Init, Info.Class)));
      if (!Info.Read)
        line(Indent, fmt::format("bankwise::keep({}); // never read: keep its load", cName(Info.Decl->Name)));
    } else if (const auto *A = St.as<ir::Assign>()) {
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const LetInfo &Info = F.let(V);
        line(Indent, fmt::format("{} = {};", cName(Info.Decl->Name), Dev.value(A->Value, Info.Class)));
        if (!Info.Read)
          line(Indent, fmt::format("bankwise::keep({});", cName(Info.Decl->Name)));
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        line(Indent, fmt::format("{} = {};", Dev.element(R.Array, R.Indices),
                                 Dev.store(F.array(R.Array).Decl->Elem, A->Value)));
      }
    } else if (const auto *Fo = St.as<ir::For>()) {
      const std::string V = cName(Fo->Var);
      const std::string Begin = Dev.index(Fo->Begin);
      std::string End = Dev.index(Fo->End, 7);
      const bool Step = !Fo->Step || Fo->Step->is<ir::IntLit>();
      const std::int64_t StepValue = !Fo->Step ? 1 : Step ? Fo->Step->as<ir::IntLit>()->Value : 0;
      std::string Init = fmt::format("Index {} = {}", V, Begin);
      if (!F.uniform(Fo->End) || !F.rangeOf(Fo->End).Known || Fo->End.is<ir::ArrayRead>()) {
        Init += fmt::format(", {}_end = {}", V, Dev.index(Fo->End));
        End = V + "_end";
      }
      if (unrollsLocals(*Fo))
        line(Indent, "#pragma unroll // the loop indexes a local array: unrolled, it stays in registers");
      if (Step && StepValue == 1)
        line(Indent, fmt::format("for ({}; {} < {}; ++{}) {{", Init, V, End, V));
      else if (Step && StepValue == -1)
        line(Indent, fmt::format("for ({}; {} > {}; --{}) {{", Init, V, End, V));
      else if (Step)
        line(Indent, fmt::format("for ({}; {} {} {}; {} += {}) {{", Init, V, StepValue > 0 ? "<" : ">", End, V,
                                 literal(StepValue, false)));
      else {
        const std::string S = Dev.index(*Fo->Step);
        line(Indent, fmt::format("for ({}; ({} > 0) ? {} < {} : {} > {}; {} += {}) {{", Init, S, V, End, V,
                                 End, V, S));
      }
      deviceBlock(Fo->Body, Indent + 1);
      line(Indent, "}");
    } else if (const auto *I = St.as<ir::If>()) {
      line(Indent, fmt::format("if ({}) {{", Dev.index(I->Cond)));
      deviceBlock(I->Then, Indent + 1);
      const ir::If *Cur = I;
      while (Cur->Else.size() == 1 && Cur->Else.front().is<ir::If>()) {
        const Stmt &Next = Cur->Else.front();
        Cur = Next.as<ir::If>();
        siteComments(Indent + 1, Next);
        line(Indent, fmt::format("}} else if ({}) {{", Dev.index(Cur->Cond)));
        deviceBlock(Cur->Then, Indent + 1);
      }
      if (!Cur->Else.empty()) {
        line(Indent, "} else {");
        deviceBlock(Cur->Else, Indent + 1);
      }
      line(Indent, "}");
    } else if (const auto *W = St.as<ir::While>()) {
      line(Indent, fmt::format("while ({}) {{", Dev.index(W->Cond)));
      deviceBlock(W->Body, Indent + 1);
      line(Indent, "}");
    } else if (const auto *X = St.as<ir::ExprStmt>()) {
      line(Indent, Dev.effect(X->Value) + ";");
    } else if (St.is<ir::Sync>()) {
      line(Indent, "__syncthreads();");
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      emitDeviceArray(Indent, F.array(D->Decl.Name));
    }
  }
}

void KernelEmitter::deviceComment() {
  const auto &G = F.K.Geo;
  if (F.RuntimeUsed.empty())
    line(0, fmt::format("// Kernel '{}' ({}:{}:{}): grid ({}, {}, {}), block ({}, {}, {}), {} threads.",
                        F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, G.GridDim[0], G.GridDim[1],
                        G.GridDim[2], G.BlockDim[0], G.BlockDim[1], G.BlockDim[2], Rep.Threads));
  else {
    line(0, fmt::format("// Kernel '{}' ({}:{}:{}): grid {}, block ({}, {}, {}); runtime sizes {} (arguments).",
                        F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, gridText(), G.BlockDim[0],
                        G.BlockDim[1], G.BlockDim[2], sizeNames()));
    line(0, fmt::format("// Predicted at {} (representative sizes; `compile --size` sets them): grid ({}, {}, {}), "
                        "{} threads; the model, the layout choices and the site comments below are for these "
                        "sizes only.",
                        sizesText(Mod), G.GridDim[0], G.GridDim[1], G.GridDim[2], Rep.Threads));
  }
  for (const ColoredScheduleReport &C : Mod.Pipe.Colored)
    if (C.Auto && (C.Kernel == F.K.Name || (F.InLaunch && F.InLaunch->Name == C.Kernel &&
                                            F.InLaunch->Kernels.front() == F.K.Name)))
      line(0, fmt::format("// `schedule auto` of the copy at {}:{}:{}: {}[P(i)] = {}[i] moved by {}.", Opts.SourceName,
                          C.Loc.Line, C.Loc.Col, C.Dst, C.Src, describe(*C.Auto)));
  for (const ColoredScheduleReport &C : Mod.Pipe.Colored)
    if (C.Bits && C.Kernel == F.K.Name)
      line(0, fmt::format("// `schedule bits` of the copy at {}:{}:{}: {}[P(i)] = {}[i], P a bit permutation "
                          "({}),\n// in one pass: each block stages 1,024 elements in a 32 x 32 shared tile, "
                          "every warp reading and writing 32 consecutive ones.",
                          Opts.SourceName, C.Loc.Line, C.Loc.Col, C.Dst, C.Src, describe(C.Bits->Bpc)));
  line(0, fmt::format("// Model: {} on {}{}; lower bound {} = {:.6g}; {}.",
                      Rep.TimeSimulated ? fmt::format("{} time units", Rep.Time)
                                        : std::string("time not simulated (too many warp accesses)"),
                      Rep.TimeMachine, Rep.TimeUsesWorstCase ? " (data-dependent sites at worst case)" : "",
                      Rep.LowerBoundFormula, Rep.LowerBound,
                      Rep.FastPath ? (Rep.TableWalk ? "analyzed by class (table reads per lane warp by warp)"
                                                    : "analyzed by class, no warp visited")
                                   : "analyzed warp by warp (" + Rep.FallbackReason + ")"));
  line(0, fmt::format("// Index arithmetic in {} ({}).", F.indexType(),
                      F.LongIndex ? "some index value may exceed 32 bits"
                                  : "every index value of the kernel fits in 32 bits"));
}

void KernelEmitter::deviceSignature() {
  std::vector<std::string> Ps;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isDeviceParam())
      Ps.push_back(fmt::format("{}{} *{}", A.Written ? "" : "const ", devType(A.Decl->Elem), A.pointerName()));
  for (const PermUse &U : F.PermUses)
    Ps.push_back(fmt::format("const {} *{}", Mod.Tables[static_cast<std::size_t>(U.Table)].DeviceType, U.CName));
  if (!F.RuntimeUsed.empty())
    Ps.push_back(sizeNames(F.indexType() + " "));
  line(0, fmt::format("__global__ void __launch_bounds__({}) {}({}) {{", F.CudaThreads, kernelName(),
                      fmt::join(Ps, ", ")));
  line(1, fmt::format("using Index = {};", F.indexType()));
  for (const ir::Param &P : F.Prog.Params)
    if (F.ParamsUsed.count(P.Name) && !Mod.Runtime.count(P.Name))
      line(1, fmt::format("constexpr Index {} = {}; // param", cName(P.Name), literal(P.Value, F.LongIndex)));
  for (const std::string &D : derivedSizes(Dev, "Index"))
    line(1, D);
}

std::vector<std::string> KernelEmitter::threadBuiltins() {
  const auto &G = F.K.Geo;
  // Thread built-ins.
  const bool Flat3 = G.BlockDim[1] * G.BlockDim[2] > 1;
  const std::string FlatT = Flat3 ? fmt::format("(static_cast<Index>(threadIdx.z) * {} + static_cast<Index>(threadIdx.y)) * {} + static_cast<Index>(threadIdx.x)",
                                                G.BlockDim[1], G.BlockDim[0])
                                  : "static_cast<Index>(threadIdx.x)";
  bool NeedFlat = F.Virtual;
  for (const ArrayPlan &A : F.Arrays)
    NeedFlat = NeedFlat || A.Staged;
  const auto Has = [&](ir::Builtin B) { return F.Builtins.count(B) > 0; };
  NeedFlat = NeedFlat || Has(ir::Builtin::Lane) || Has(ir::Builtin::Warp) || Has(ir::Builtin::Tid);
  if (NeedFlat)
    line(1, fmt::format("const Index bw_t = {}; // thread index in the block", FlatT));
  // In a `threads p` kernel of more than 1024 threads, CUDA thread bw_t runs
  // program threads bw_t, bw_t + 1024, ...; the built-ins follow the program
  // thread, so warps hold the same 32 consecutive threads as in the model.
  const std::string Flat = F.Virtual ? "bw_vt" : "bw_t";
  std::vector<std::string> Defs;
  if (Has(ir::Builtin::Tx))
    Defs.push_back(F.Virtual ? "const Index tx = bw_vt;" : "const Index tx = static_cast<Index>(threadIdx.x);");
  if (Has(ir::Builtin::Ty))
    Defs.push_back("const Index ty = static_cast<Index>(threadIdx.y);");
  if (Has(ir::Builtin::Tz))
    Defs.push_back("const Index tz = static_cast<Index>(threadIdx.z);");
  if (Has(ir::Builtin::Bx))
    Defs.push_back("const Index bx = static_cast<Index>(blockIdx.x);");
  if (Has(ir::Builtin::By))
    Defs.push_back("const Index by = static_cast<Index>(blockIdx.y);");
  if (Has(ir::Builtin::Bz))
    Defs.push_back("const Index bz = static_cast<Index>(blockIdx.z);");
  if (Has(ir::Builtin::Lane))
    Defs.push_back(fmt::format("const Index lane = {} % {};", Flat, F.WarpWidth));
  if (Has(ir::Builtin::Warp))
    Defs.push_back(fmt::format("const Index warp = {} / {};", Flat, F.WarpWidth));
  if (Has(ir::Builtin::Tid)) {
    if (F.RuntimeGrid)
      Defs.push_back(fmt::format("const Index tid = ((static_cast<Index>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * {} + bw_t;",
                                 F.Threads));
    else if (F.Blocks == 1)
      Defs.push_back(fmt::format("const Index tid = {};", Flat));
    else if (G.GridDim[1] * G.GridDim[2] == 1)
      Defs.push_back(fmt::format("const Index tid = static_cast<Index>(blockIdx.x) * {} + bw_t;", F.Threads));
    else
      Defs.push_back(fmt::format("const Index tid = ((static_cast<Index>(blockIdx.z) * {} + static_cast<Index>(blockIdx.y)) * {} + static_cast<Index>(blockIdx.x)) * {} + bw_t;",
                                 G.GridDim[1], G.GridDim[0], F.Threads));
  }
  return Defs;
}

void KernelEmitter::deviceArrays() {
  if (F.UseDynamic)
    line(1, fmt::format("extern __shared__ __align__(16) unsigned char bw_smem[]; // {} bytes, opted in by the launch",
                        F.DynamicSmem));
  // Parameters and top-level arrays: layouts, shared copies.
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    if (A.Demoted)
      line(1, fmt::format("// '{}' is shared in the program but does not fit the {} bytes of shared memory "
                          "with the rest: it stays in global memory.",
                          A.Decl->Name, ir::targetInfo(Opts.Arch)->MaxSharedPerBlock));
    if (A.InShared || A.usesLayoutObject())
      emitDeviceArray(1, A);
  }
  bool AnyStaged = false;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.Staged)
      continue;
    AnyStaged = true;
    const StagingCost C = F.placed(A).Copy;
    line(1, fmt::format("// Staging (added by codegen): '{}' is a shared {} of the program; the block copies it "
                        "in from global memory. Predicted: sm_90 sectors {} per request, shared wavefronts {}.",
                        A.Decl->Name, A.From == Origin::Param ? "parameter" : "array", C.Sectors, C.Wavefronts));
    const std::int64_t Cols = A.Decl->Shape.back();
    const std::string Dst = A.Decl->Shape.size() == 1 && A.Lay.Kind == LayoutKind::Raw
                                ? fmt::format("{}[bw_i]", A.Name)
                                : fmt::format("{}[{}_layout.offset(bw_i / {}, bw_i % {})]", A.Name, A.Name, Cols, Cols);
    line(1, fmt::format("for (Index bw_i = bw_t; bw_i < {}; bw_i += {})", A.Decl->numElements(), F.CudaThreads));
    line(2, fmt::format("{} = {}[bw_i];", Dst, A.pointerName()));
  }
  if (AnyStaged)
    line(1, "__syncthreads();");
}

void KernelEmitter::stageBack() {
  bool AnyBack = false;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.Staged || !A.Written)
      continue;
    if (!AnyBack)
      line(1, "__syncthreads();");
    AnyBack = true;
    const std::int64_t Cols = A.Decl->Shape.back();
    const std::string Src = A.Decl->Shape.size() == 1 && A.Lay.Kind == LayoutKind::Raw
                                ? fmt::format("{}[bw_i]", A.Name)
                                : fmt::format("{}[{}_layout.offset(bw_i / {}, bw_i % {})]", A.Name, A.Name, Cols, Cols);
    line(1, fmt::format("// Staging (added by codegen): '{}' goes back to global memory.", A.Decl->Name));
    line(1, fmt::format("for (Index bw_i = bw_t; bw_i < {}; bw_i += {})", A.Decl->numElements(), F.CudaThreads));
    line(2, fmt::format("{}[bw_i] = {};", A.pointerName(), Src));
  }
}

std::string KernelEmitter::device() {
  Out.clear();
  deviceComment();
  deviceSignature();
  const std::vector<std::string> Defs = threadBuiltins();
  if (!F.Virtual)
    for (const std::string &D : Defs)
      line(1, D);
  deviceArrays();
  if (F.Virtual) {
    line(1, fmt::format("for (Index bw_vt = bw_t; bw_vt < {}; bw_vt += {}) {{ // program thread bw_vt",
                        F.Threads, F.CudaThreads));
    for (const std::string &D : Defs)
      line(2, D);
    deviceBlock(F.K.Body, 2);
    line(1, "}");
  } else {
    deviceBlock(F.K.Body, 1);
  }
  stageBack();
  line(0, "}");
  return Out;
}

std::string KernelEmitter::launch() const {
  std::string S = fmt::format("cudaError_t {}({}) {{\n", launchName(), apiParams(false));
  if (!F.RuntimeUsed.empty())
    S += runtimeChecks();
  std::vector<std::string> Checks;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam())
      Checks.push_back(F.runtimeShape(*A.Decl)
                           ? fmt::format("{}_count != static_cast<std::size_t>({})", A.Name, F.countText(*A.Decl, Mode::Host))
                           : fmt::format("{}_count != {}", A.Name, A.footprint()));
  if (!Checks.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Checks, " || "));
  const bool NeedTables = !F.PermUses.empty() ||
                          std::any_of(F.Arrays.begin(), F.Arrays.end(), [](const ArrayPlan &A) { return A.Table >= 0; });
  if (NeedTables)
    S += "  if (const cudaError_t Err = load_tables(); Err != cudaSuccess)\n    return Err;\n";
  if (F.UseDynamic && F.DynamicSmem > ir::targetInfo(Opts.Arch)->DefaultSharedPerBlock)
    S += fmt::format("  if (const cudaError_t Err = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n"
                     "      Err != cudaSuccess)\n    return Err;\n",
                     kernelName(), F.DynamicSmem);
  std::vector<std::string> Args;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    Args.push_back(A.Table >= 0 ? fmt::format("bw_dev_table_{}", A.Table) : A.Name);
  }
  for (const PermUse &U : F.PermUses)
    Args.push_back(fmt::format("bw_dev_table_{}", U.Table));
  if (!F.RuntimeUsed.empty())
    Args.push_back(sizeNames());
  const auto &G = F.K.Geo;
  const std::string Grid = F.RuntimeGrid ? "bw_grid" : fmt::format("dim3({}, {}, {})", G.GridDim[0], G.GridDim[1], G.GridDim[2]);
  S += fmt::format("  {}<<<{}, dim3({}, {}, {}), {}, stream>>>({});\n", kernelName(), Grid,
                   F.Virtual ? F.CudaThreads : G.BlockDim[0], G.BlockDim[1], G.BlockDim[2],
                   F.UseDynamic ? F.DynamicSmem : 0, fmt::join(Args, ", "));
  S += "  return cudaGetLastError();\n}\n";
  return S;
}

std::string KernelEmitter::runtimeChecks() const {
  std::string S;
  for (const std::string &D : derivedSizes(Host, "long long"))
    S += "  " + D + "\n";
  std::vector<std::string> Bad;
  for (const ir::Param *P : F.RuntimeUsed)
    if (P->Where)
      Bad.push_back(fmt::format("!({})", Host.index(*P->Where)));
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam() && F.runtimeShape(*A.Decl))
      for (std::size_t D = 0; D < A.Decl->Dims.size(); ++D)
        if (Mod.runtime(A.Decl->Dims[D]))
          Bad.push_back(fmt::format("{} < 1", Host.index(A.Decl->Dims[D], 10)));
  // Each distinct condition once, in order.
  std::vector<std::string> Unique;
  for (const std::string &B : Bad)
    if (std::find(Unique.begin(), Unique.end(), B) == Unique.end())
      Unique.push_back(B);
  if (!Unique.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Unique, " || "));
  if (F.RuntimeGrid) {
    S += "  " + gridDecl() + "\n";
    S += fmt::format("  if (bw_grid_x < 1 || bw_grid_x > {0} || bw_grid_y < 1 || bw_grid_y > {1} || bw_grid_z < 1 || "
                     "bw_grid_z > {1})\n    return cudaErrorInvalidValue;\n",
                     MaxGridX, MaxGridYZ);
    S += "  const dim3 bw_grid(static_cast<unsigned>(bw_grid_x), static_cast<unsigned>(bw_grid_y), "
         "static_cast<unsigned>(bw_grid_z));\n";
  }
  return S;
}


} // namespace bankwise::codegen::detail
