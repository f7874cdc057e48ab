// The CPU reference of every kernel: the program executed on the host.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

//===-- The CPU reference ------------------------------------------------------===//

void KernelEmitter::perThread(int Indent, const std::string &Mask, const std::vector<std::string> &Body) {
  line(Indent, "for (Index t = 0; t < NT; ++t) {");
  if (!Mask.empty())
    line(Indent + 1, fmt::format("if (!{}[t])", Mask)), line(Indent + 2, "continue;");
  for (const std::string &S : Body)
    line(Indent + 1, S);
  line(Indent, "}");
}

void KernelEmitter::hostBlock(const ir::Block &B, int Indent, const std::string &Mask) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      const LetInfo &Info = F.let(L);
      if (Info.Uniform) {
        line(Indent, fmt::format("const {} {} = {};", declType(Info, Mode::Host), cName(Info.Decl->Name),
                                 Host.value(L->Init, Info.Class)));
      } else {
        line(Indent, fmt::format("std::vector<{}> {}(NT);", declType(Info, Mode::Host), cName(Info.Decl->Name)));
        perThread(Indent, Mask, {fmt::format("{}[t] = {};", cName(Info.Decl->Name), Host.value(L->Init, Info.Class))});
      }
    } else if (const auto *A = St.as<ir::Assign>()) {
      std::string Target, Value, Type;
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const LetInfo &Info = F.let(V);
        Target = cName(Info.Decl->Name) + "[t]";
        Value = Host.value(A->Value, Info.Class);
        Type = declType(Info, Mode::Host);
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        Target = Host.element(R.Array, R.Indices);
        Value = Host.store(F.array(R.Array).Decl->Elem, A->Value);
        Type = hostType(F.array(R.Array).Decl->Elem);
      }
      if (ir::anySubexpr(A->Value, [](const Expr &X) { return X.is<ir::Shuffle>(); })) {
        // A shuffle reads other threads' values of this statement's inputs:
        // every thread's value first, then the stores (as a warp does).
        const std::string Tmp = "bw_s" + std::to_string(++Counter);
        line(Indent, fmt::format("std::vector<{}> {}(NT);", Type, Tmp));
        perThread(Indent, Mask, {fmt::format("{}[t] = {};", Tmp, Value)});
        Value = Tmp + "[t]";
      }
      perThread(Indent, Mask, {fmt::format("{} = {};", Target, Value)});
    } else if (const auto *Fo = St.as<ir::For>()) {
      const LoopInfo &Info = F.loop(Fo);
      const std::string V = cName(Fo->Var);
      const std::string Step = Fo->Step ? Host.index(*Fo->Step) : "1";
      if (Info.Uniform) {
        const std::string Cond = !Fo->Step ? "<"
                                 : Fo->Step->is<ir::IntLit>() ? (Fo->Step->as<ir::IntLit>()->Value > 0 ? "<" : ">")
                                                              : "";
        line(Indent, fmt::format("for (Index {} = {}, {}_end = {}; {}; {} += {}) {{", V, Host.index(Fo->Begin), V,
                                 Host.index(Fo->End),
                                 Cond.empty() ? fmt::format("({} > 0) ? {} < {}_end : {} > {}_end", Step, V, V, V, V)
                                              : fmt::format("{} {} {}_end", V, Cond, V),
                                 V, Step));
        hostBlock(Fo->Body, Indent + 1, Mask);
        line(Indent, "}");
      } else {
        // Bounds differ between threads: each thread keeps its own counter,
        // and the body runs for the threads still inside the loop.
        const std::string Id = std::to_string(++Counter);
        const std::string Active = "bw_m" + Id;
        line(Indent, "{");
        line(Indent + 1, fmt::format("std::vector<Index> {}(NT), {}_end(NT), {}_step(NT);", V, V, V));
        line(Indent + 1, fmt::format("std::vector<char> {}(NT);", Active));
        perThread(Indent + 1, Mask,
                  {fmt::format("{}[t] = {};", V, Host.index(Fo->Begin)),
                   fmt::format("{}_end[t] = {};", V, Host.index(Fo->End)),
                   fmt::format("{}_step[t] = {};", V, Step)});
        line(Indent + 1, "for (;;) {");
        line(Indent + 2, "bool bw_any = false;");
        line(Indent + 2, "for (Index t = 0; t < NT; ++t) {");
        line(Indent + 3, fmt::format("{}[t] = {}({}_step[t] > 0 ? {}[t] < {}_end[t] : {}[t] > {}_end[t]);", Active,
                                     Mask.empty() ? "" : Mask + "[t] && ", V, V, V, V, V));
        line(Indent + 3, fmt::format("bw_any = bw_any || {}[t];", Active));
        line(Indent + 2, "}");
        line(Indent + 2, "if (!bw_any)");
        line(Indent + 3, "break;");
        hostBlock(Fo->Body, Indent + 2, Active);
        line(Indent + 2, "for (Index t = 0; t < NT; ++t)");
        line(Indent + 3, fmt::format("if ({}[t])", Active));
        line(Indent + 4, fmt::format("{}[t] += {}_step[t];", V, V));
        line(Indent + 1, "}");
        line(Indent, "}");
      }
    } else if (const auto *I = St.as<ir::If>()) {
      if (F.uniform(I->Cond)) {
        line(Indent, fmt::format("if ({}) {{", Host.index(I->Cond)));
        hostBlock(I->Then, Indent + 1, Mask);
        if (!I->Else.empty()) {
          line(Indent, "} else {");
          hostBlock(I->Else, Indent + 1, Mask);
        }
        line(Indent, "}");
      } else {
        // Per-thread condition, evaluated for every thread before either branch.
        const std::string Id = std::to_string(++Counter);
        const std::string Then = "bw_then" + Id, Else = "bw_else" + Id;
        line(Indent, "{");
        if (I->Else.empty()) {
          line(Indent + 1, fmt::format("std::vector<char> {}(NT);", Then));
          perThread(Indent + 1, Mask, {fmt::format("{}[t] = ({}) != 0;", Then, Host.index(I->Cond))});
        } else {
          line(Indent + 1, fmt::format("std::vector<char> {}(NT), {}(NT);", Then, Else));
          perThread(Indent + 1, Mask,
                    {fmt::format("{}[t] = ({}) != 0;", Then, Host.index(I->Cond)),
                     fmt::format("{}[t] = !{}[t];", Else, Then)});
        }
        hostBlock(I->Then, Indent + 1, Then);
        if (!I->Else.empty())
          hostBlock(I->Else, Indent + 1, Else);
        line(Indent, "}");
      }
    } else if (const auto *W = St.as<ir::While>()) {
      // Each thread runs the body while its condition holds; the loop ends
      // when no thread is left (the analysis bounds the trips first).
      const std::string Active = "bw_w" + std::to_string(++Counter);
      line(Indent, "{");
      line(Indent + 1, fmt::format("std::vector<char> {}(NT, 1);", Active));
      line(Indent + 1, "for (;;) {");
      line(Indent + 2, "bool bw_any = false;");
      line(Indent + 2, "for (Index t = 0; t < NT; ++t) {");
      line(Indent + 3, fmt::format("{}[t] = {}[t] && {}({}) != 0;", Active, Active,
                                   Mask.empty() ? "" : Mask + "[t] && ", Host.index(W->Cond)));
      line(Indent + 3, fmt::format("bw_any = bw_any || {}[t];", Active));
      line(Indent + 2, "}");
      line(Indent + 2, "if (!bw_any)");
      line(Indent + 3, "break;");
      hostBlock(W->Body, Indent + 2, Active);
      line(Indent + 1, "}");
      line(Indent, "}");
    } else if (const auto *X = St.as<ir::ExprStmt>()) {
      // An atomic: each thread's read-modify-write in thread order.
      perThread(Indent, Mask, {Host.effect(X->Value) + ";"});
    } else if (St.is<ir::Sync>()) {
      line(Indent, "// sync: every thread finished the statements above (lockstep).");
    } else if (const auto *D = St.as<ir::ArrayDecl>(); D && D->Decl.ViewOf) {
      // The host image of its array, read in vectors (no f16 or bf16 here:
      // their images are float).
      const ArrayPlan &B = F.array(*D->Decl.ViewOf);
      const char *Const = B.Written ? "" : "const ";
      const std::string T = hostType(D->Decl.Elem);
      line(Indent, fmt::format("[[maybe_unused]] {}{} *const {} = reinterpret_cast<{}{} *>({}.data()); // view of '{}'",
                               Const, T, F.array(D->Decl.Name).Name, Const, T, B.Name, B.Decl->Name));
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      const ArrayPlan &A = F.array(D->Decl.Name);
      if (A.Local)
        line(Indent, fmt::format("std::vector<{}> {}(NT * {}); // local, per thread", hostType(A.Decl->Elem),
                                 A.Name, A.Decl->numElements()));
      else
        line(Indent, fmt::format("std::vector<{}> {}({}); // shared, per block", hostType(A.Decl->Elem), A.Name,
                                 A.Decl->numElements()));
    }
  }
}

/// Host parameters of the reference: every device array as a logical host
/// image, tables as their device type.
std::string referenceParams(const KernelFacts &F, const ModuleState &Mod) {
  std::vector<std::string> Ps;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    if (A.Table >= 0)
      Ps.push_back(fmt::format("const std::vector<{}> &{}", devType(A.Decl->Elem), A.Name));
    else
      Ps.push_back(fmt::format("{}std::vector<{}> &{}", A.Written ? "" : "const ", hostType(A.Decl->Elem), A.Name));
  }
  for (const PermUse &U : F.PermUses)
    Ps.push_back(fmt::format("const std::vector<{}> &{}", Mod.Tables[static_cast<std::size_t>(U.Table)].DeviceType,
                             U.CName));
  return fmt::format("{}", fmt::join(Ps, ", "));
}

std::string KernelEmitter::reference() {
  Out.clear();
  Counter = 0;
  const auto &G = F.K.Geo;
  line(0, fmt::format("// CPU reference of '{}': the .bw semantics run directly on logical (row-major)", F.K.Name));
  line(0, "// arrays, one block after another; inside a block each statement runs for every");
  line(0, "// thread before the next one starts (statement-level lockstep), which is exact");
  line(0, "// for race-free programs. Per-thread locals are arrays indexed by the thread t.");
  std::string Params = referenceParams(F, Mod);
  if (!F.RuntimeUsed.empty())
    Params += (Params.empty() ? "" : ", ") + sizeNames("long long ");
  line(0, fmt::format("static void reference_{}({}) {{", F.K.Name, Params));
  line(1, "using Index = long long;");
  line(1, fmt::format("constexpr Index NT = {};", F.Threads));
  for (const std::string &D : derivedSizes(Host, "Index"))
    line(1, D);
  if (F.RuntimeGrid)
    line(1, gridDecl());
  const auto Bound = [&](int Axis) {
    const char *Axes[] = {"x", "y", "z"};
    return F.RuntimeGrid ? fmt::format("bw_grid_{}", Axes[Axis]) : fmt::format("{}", G.GridDim[static_cast<std::size_t>(Axis)]);
  };
  line(1, fmt::format("for (Index bz = 0; bz < {}; ++bz)", Bound(2)));
  line(1, fmt::format("for (Index by = 0; by < {}; ++by)", Bound(1)));
  line(1, fmt::format("for (Index bx = 0; bx < {}; ++bx) {{", Bound(0)));
  line(2, "(void)bx, (void)by, (void)bz;");
  hostBlock(F.K.Body, 2, "");
  line(1, "}");
  line(0, "}");
  return Out;
}


} // namespace bankwise::codegen::detail
