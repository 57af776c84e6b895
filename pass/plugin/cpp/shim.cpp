// shim.cpp -- the only C++ in dao. It registers the dao module pass with
// LLVM 19's new pass manager and exposes the few C++-only utilities the Rust
// pass needs (PromoteMemToReg, diagnostics through the LLVMContext, the
// loop facts of ScalarEvolution for the array-section kills). Every
// LLVM-version conditional belongs here and nowhere else.
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Analysis/InstructionSimplify.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm-c/Types.h"
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

// DAO_DEBUG_LOOPS=1 (config.rs): why a loop or a read got no section (read
// once: it is asked in the analyses' inner loops).
static bool debugLoops() {
  static const bool On = getenv("DAO_DEBUG_LOOPS") != nullptr;
  return On;
}

namespace {
// A plain message diagnostic from the dao plugin (LLVM 19 has no generic one).
struct DaoDiagnostic : DiagnosticInfo {
  const Twine &Msg;
  DaoDiagnostic(const Twine &M, DiagnosticSeverity S) : DiagnosticInfo(kind(), S), Msg(M) {}
  static int kind() {
    static int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }
};
} // namespace

extern "C" {
// Implemented in Rust (src/lib.rs). Returns 1 if the module was changed.
int dao_rust_run_on_module(LLVMModuleRef m, int opt_level);

// Promote the given allocas of function f to SSA registers.
void dao_cxx_promote(LLVMValueRef f, LLVMValueRef *allocas, unsigned n) {
  Function *F = unwrap<Function>(f);
  std::vector<AllocaInst *> list;
  for (unsigned i = 0; i < n; ++i) {
    auto *AI = cast<AllocaInst>(unwrap(allocas[i]));
    if (isAllocaPromotable(AI))
      list.push_back(AI);
  }
  if (list.empty())
    return;
  DominatorTree DT(*F);
  PromoteMemToReg(list, DT);
}

// A copy of `f` in its module, internal, named `name` (fault-tolerant task
// replicas). What the copy's body will do differs from `f`'s (the pass routes
// its memory accesses through the runtime), so the attributes that describe
// memory effects are dropped from it, its parameters and its call sites.
LLVMValueRef dao_cxx_clone_function(LLVMValueRef f, const char *name) {
  Function *F = unwrap<Function>(f);
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(F, VMap);
  C->setName(name);
  C->setLinkage(GlobalValue::InternalLinkage);
  C->setVisibility(GlobalValue::DefaultVisibility);
  C->setDSOLocal(true);
  const Attribute::AttrKind mem[] = {Attribute::Memory, Attribute::NoSync, Attribute::NoFree, Attribute::WillReturn};
  const Attribute::AttrKind param[] = {Attribute::ReadOnly, Attribute::ReadNone, Attribute::WriteOnly};
  for (auto k : mem)
    C->removeFnAttr(k);
  for (unsigned i = 0; i < C->arg_size(); ++i)
    for (auto k : param)
      C->removeParamAttr(i, k);
  for (BasicBlock &BB : *C)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        for (auto k : mem)
          CB->removeFnAttr(k);
        for (unsigned i = 0; i < CB->arg_size(); ++i)
          for (auto k : param)
            CB->removeParamAttr(i, k);
      }
  return wrap(C);
}

// Report a diagnostic through the context (severity: 0 error, 1 warning, 2 remark/note).
void dao_cxx_diagnose(LLVMModuleRef m, int severity, const char *msg) {
  Module *M = unwrap(m);
  DiagnosticSeverity sev = severity == 0 ? DS_Error : severity == 1 ? DS_Warning : DS_Remark;
  if (sev == DS_Remark) {
    errs() << msg << "\n";
    return;
  }
  M->getContext().diagnose(DaoDiagnostic(Twine(msg), sev));
}

// Split the block of `inst` before it; returns the new block (which starts at inst).
LLVMBasicBlockRef dao_cxx_split_before(LLVMValueRef inst, const char *name) {
  Instruction *I = unwrap<Instruction>(inst);
  return wrap(I->getParent()->splitBasicBlock(I, name));
}

// The demangled form of a C++ name (`Domain::CalcForceForNodes()`), or the
// name itself; copied into out (cap bytes, NUL-terminated when it fits).
// Returns its length.
size_t dao_cxx_demangle(const char *name, char *out, size_t cap) {
  std::string d = demangle(std::string_view(name));
  if (cap > 0) {
    size_t n = d.size() < cap - 1 ? d.size() : cap - 1;
    memcpy(out, d.data(), n);
    out[n] = 0;
  }
  return d.size();
}

// An invoke's normal edge gets a block of its own (phis of the old normal
// destination updated); returns it. Code that must run after the invoke
// and before its result's uses (a store of the result) goes there.
LLVMBasicBlockRef dao_cxx_split_invoke_normal(LLVMValueRef invoke, const char *name) {
  auto *II = unwrap<InvokeInst>(invoke);
  BasicBlock *From = II->getParent(), *To = II->getNormalDest();
  BasicBlock *NB = BasicBlock::Create(To->getContext(), name, To->getParent(), To);
  BranchInst::Create(To, NB);
  II->setNormalDest(NB);
  for (PHINode &P : To->phis()) {
    int ix = P.getBasicBlockIndex(From);
    // an invoke whose two edges go to one block: only the normal one moves
    if (ix >= 0)
      P.setIncomingBlock(ix, NB);
  }
  return wrap(NB);
}

// Does this call carry the given parameter attribute (e.g. nocapture) on argument i?
// The value `p` is a constant byte offset from (through GEPs and casts),
// with the offset in `*off`; null when the offset does not fit 48 bits.
LLVMValueRef dao_cxx_strip_offset(LLVMValueRef p, int64_t *off) {
  Value *V = unwrap(p);
  const Module *M = nullptr;
  if (auto *I = dyn_cast<Instruction>(V))
    M = I->getModule();
  else if (auto *A = dyn_cast<Argument>(V))
    M = A->getParent()->getParent();
  else if (auto *G = dyn_cast<GlobalValue>(V))
    M = G->getParent();
  if (!M || !V->getType()->isPointerTy())
    return nullptr;
  const DataLayout &DL = M->getDataLayout();
  APInt Off(DL.getIndexTypeSizeInBits(V->getType()), 0);
  Value *B = V->stripAndAccumulateConstantOffsets(DL, Off, true);
  if (Off.getSignificantBits() > 48)
    return nullptr;
  *off = Off.getSExtValue();
  return wrap(B);
}

int dao_cxx_param_nocapture(LLVMValueRef call, unsigned i) {
  auto *CB = dyn_cast<CallBase>(unwrap(call));
  return CB && i < CB->arg_size() && CB->doesNotCapture(i) ? 1 : 0;
}

// Verify a module; returns 1 when broken and prints the reasons to stderr.
int dao_cxx_verify(LLVMModuleRef m) { return verifyModule(*unwrap(m), &errs()) ? 1 : 0; }

// After an internal error while the module was being instrumented (a panic
// half way, or a verifier failure): drop all its code, so that no later
// pass sees half-instrumented IR. Every function and variable becomes an
// external declaration (no body, no initializer, no comdat), aliases and
// ifuncs are removed, and so are the appending arrays (`llvm.global_ctors`,
// `llvm.used`, ...), which name functions. The result verifies; the
// compile fails anyway on the error dao reported.
void dao_cxx_drop_code(LLVMModuleRef m) {
  Module *M = unwrap(m);
  for (Function &F : *M) {
    if (!F.isDeclaration())
      F.deleteBody();
    F.setComdat(nullptr);
    if (!F.hasExternalLinkage() && !F.hasExternalWeakLinkage())
      F.setLinkage(GlobalValue::ExternalLinkage);
  }
  std::vector<GlobalValue *> gone;
  for (GlobalAlias &A : M->aliases())
    gone.push_back(&A);
  for (GlobalIFunc &I : M->ifuncs())
    gone.push_back(&I);
  for (GlobalVariable &G : M->globals()) {
    if (G.hasAppendingLinkage()) {
      gone.push_back(&G);
      continue;
    }
    if (G.hasInitializer())
      G.setInitializer(nullptr);
    G.setComdat(nullptr);
    // (a declaration is external or extern_weak)
    if (!G.hasExternalLinkage() && !G.hasExternalWeakLinkage())
      G.setLinkage(GlobalValue::ExternalLinkage);
  }
  for (GlobalValue *V : gone) {
    V->replaceAllUsesWith(PoisonValue::get(V->getType()));
    V->eraseFromParent();
  }
}
}

// ---------------------------------------------------------------------------
// Loop write sections (issue #15): which bytes of which object each loop of a
// function certainly writes, from ScalarEvolution, for the kills of the
// LLVM-free section analysis (pass/analysis/src/sections.rs), which decides.
//
// The facts are computed on a scratch clone of the function, never on the
// function itself:
// - its promotable allocas are promoted (at -O0 every induction variable
//   lives in memory, where ScalarEvolution sees nothing);
// - the team view: its `__kmpc_for_static_init_*` calls are deleted, so the
//   bounds a static worksharing loop loads after the call are the bounds
//   stored before it, the whole iteration space. What the loop then writes
//   is what the team writes together (each thread its chunk). Stores to
//   private memory would be wrong in that view, so the caller keeps only
//   the sections of shared globals of a function where calls were deleted.
//
// A store contributes to loop L (and every loop between it and L) only when:
// every loop on the way has a preheader, a latch, one exiting block and a
// constant backedge-taken count; the store (or, one level up, the inner
// loop's header) dominates the latch, so every completed iteration executes
// it; its address is base + an affine function of the loops' iterations
// with constant steps and a constant start. Count of executions per entry:
// BTC + 1 when it also dominates the exiting block, BTC otherwise (a lower
// bound: must-write). Anything else contributes nothing (conservative).
namespace {
// A symbolic count (issue #15, runtime-checked conditions): add + the value
// of the `bytes`-wide integer at byte `off` of global G (sign- or
// zero-extended), a global the function and its callees never write.
struct DaoSym {
  GlobalVariable *G = nullptr;
  int64_t off = 0;
  unsigned bytes = 0;
  int sgn = 0;
  int64_t add = 0;
  int64_t low = 0; // the value must also be at least this
  // a requirement (DaoSection::reqs) only: the value must also be at most
  // this (a pinned value, below: `high` == its value)
  int64_t high = INT64_MAX;
  // a write's count `add + floor((U + pre) / div)` (issue #33: a loop
  // stepping by a constant, `for (jj = 0; jj <= n - 16; jj += 16)`); 1
  // and 0 otherwise
  int64_t div = 1;
  int64_t pre = 0;
  // a write's count times a factor (issue #33, heap objects: a nest
  // flattened into one run of cells, `a[i * n + j]`): times the constant
  // `mul`, or times `add2` + the `bytes2`-wide integer at `off2` of G2
  GlobalVariable *G2 = nullptr;
  int64_t off2 = 0;
  unsigned bytes2 = 0;
  int sgn2 = 0;
  int64_t add2 = 0;
  uint64_t mul = 1;
};
// A value of a global assumed in the writes-only run of a function
// (`pins`): the `bytes`-wide integer at `off` of G is `value`. Every store
// of the module to those bytes stores that constant; the kills the run
// finds hold only when the global has that value at the checkpoint (a
// condition, min == max == value, like the bounds').
struct DaoPin {
  GlobalVariable *G;
  int64_t off;
  unsigned bytes;
  int64_t value;
};
struct DaoSection {
  unsigned loop;
  Value *base;
  int64_t start;
  uint64_t size;
  unsigned ndims;
  int64_t stride[8];
  uint64_t count[8];
  // dims whose count is symbolic (count[d] is then 0)
  unsigned symMask = 0;
  DaoSym sym[8];
  // what the bound loads must be at least for the zero-trip guards of
  // inner loops inside the box's loops to go towards them
  std::vector<std::pair<DaoSym, int64_t>> reqs;
};
struct DaoLoopRec {
  BasicBlock *preheader, *header;
  // the static worksharing init this loop is the outermost loop of (the
  // original call), or null
  Instruction *init = nullptr;
  std::vector<BasicBlock *> blocks;
  unsigned stores = 0;    // stores and memory intrinsics in the loop (nested ones included)
  unsigned sections = 0;  // of those, how many gave a section for this loop
  // runtime-checked conditions: the block a conditional kill may move up
  // to (original; null: none), the blocks passed on the way, and what the
  // bound loads must then be at least for every branch on the way to go
  // towards the loop
  BasicBlock *guardTop = nullptr;
  std::vector<BasicBlock *> guardChain;
  std::vector<std::pair<DaoSym, int64_t>> guardReqs;
};
struct DaoRead {
  GlobalVariable *global; // the object read (null: through `param`)
  // reads through pointer parameters (`argReads`): a load or transfer
  // through this function's parameter `param` (box relative to it), or a
  // call passing a pointer into `global` or `param` to parameter
  // `calleeArg` of the defined function `callee` (box of the pointer
  // values, size 1)
  int param = -1;
  Function *callee = nullptr;
  unsigned calleeArg = 0;
  Instruction *inst = nullptr; // the load or transfer (original function), if known
  bool whole; // any byte
  int64_t start; // else a box, as DaoSection's
  uint64_t size;
  unsigned ndims;
  int64_t stride[8];
  uint64_t count[8];
  // dims whose may-count is symbolic (issue #33: loops bounded by a stable
  // global, `for (i = 0; i < grid_points[0]; i++)`): at most
  // max(floor[d], sym[d].add + the value), the value at least sym[d].low
  unsigned symMask = 0;
  DaoSym sym[8];
  int64_t floor[8] = {};
};
// Iteration-relative boxes (issue #15, reads after writes in one
// iteration): the bytes one iteration of loop `loop` writes or reads, at
// its iteration 0 (`start`), moving by `step` per iteration; dims are the
// loops inside it (must-counts for writes, may-counts for reads).
struct DaoRel {
  unsigned loop;
  Value *base;      // original object
  Instruction *inst; // a write: the clone's store; a read: the original
  int64_t start;
  uint64_t size;
  int64_t step;
  unsigned ndims;
  int64_t stride[8];
  uint64_t count[8];
  // a write: the loop directly inside `loop` that holds it (its completion
  // is the write's), or null when the store sits in `loop` itself
  Loop *child = nullptr;
  // a read: the writes of the same loop, object and step whose completion
  // dominates it (outside their child loop)
  std::vector<unsigned> writes;
  // a read: each of `writes`' start in the read's frame (issue #33: the
  // starts of both may be symbolic, `j * 4800 + k * 200` of the loops
  // around `loop`, as long as they differ by a constant)
  std::vector<int64_t> wstarts;
  // a write: its start when not a constant (null: `start`); the frame of
  // a read's `start` and `wstarts` is the first write's
  const SCEV *startS = nullptr;
  // dims whose count is symbolic, as DaoRead's (a write: at least
  // sym[d].add + the value; a read: at most max(floor[d], ...))
  unsigned symMask = 0;
  DaoSym sym[8];
  int64_t floor[8] = {};
};
struct DaoLoopFacts {
  std::vector<DaoLoopRec> loops;
  std::vector<DaoSection> sections;
  std::vector<DaoRead> reads;
  std::vector<DaoRead> argReads;
  // Edges taken only while a bound load is below a value: (block, its
  // successor, U, m) when the branch goes the other way whenever U >= m
  // (original blocks). Under a kill's conditions U >= m the edge is never
  // taken (`loop_kills.rs`: the kill also sits on it in world 1).
  struct BoundEdge {
    BasicBlock *from, *to;
    DaoSym u;
    int64_t m;
  };
  std::vector<BoundEdge> boundEdges;
  // Original blocks the scratch clone cannot reach once the vectoriser's
  // checks are folded (`foldVectorChecks`): the vector loops cut off,
  // whose accesses the kept scalar copy makes too. Their reads are not
  // among `reads` (`write_boxes.rs` `excuse_apart` excuses them).
  std::vector<BasicBlock *> dropped;
  std::vector<DaoRel> relWrites, relReads;
  // what a writes-only run could add (`dao_cxx_loop_facts`): bound loads of
  // globals every store gives one constant, and loops with a store and a
  // branch to a dead end (a block that ends the program: `exit(1)` after
  // an error message)
  std::vector<DaoPin> pinCands;
  bool deadEnds = false;
  int team = 0;
};

// Whether control can enter P from Q only when V == C: Q ends in a switch
// on V (or on `trunc nuw V`) whose cases that go to P all have C's value
// and whose default does not, or in a branch on `V == C` (`V != C`) whose
// true (false) successor alone is P.
// The value of S at iteration k of loop L, computed exactly in S's width,
// when S is made only of constants, affine recurrences of L with constant
// operands and the operations below (what a collapsed loop's `iv / D` and
// `iv % D` turn into); nothing otherwise. `budget` counts nodes visited.
std::optional<APInt> evalAt(const SCEV *S, const Loop *L, uint64_t k, uint64_t &budget) {
  if (budget == 0 || !S->getType()->isIntegerTy())
    return std::nullopt;
  --budget;
  unsigned W = S->getType()->getIntegerBitWidth();
  switch (S->getSCEVType()) {
  case scConstant:
    return cast<SCEVConstant>(S)->getAPInt();
  case scTruncate:
  case scZeroExtend:
  case scSignExtend: {
    auto *C = cast<SCEVCastExpr>(S);
    auto V = evalAt(C->getOperand(), L, k, budget);
    if (!V)
      return std::nullopt;
    if (S->getSCEVType() == scTruncate)
      return V->trunc(W);
    return S->getSCEVType() == scZeroExtend ? V->zext(W) : V->sext(W);
  }
  case scAddExpr:
  case scMulExpr:
  case scUMaxExpr:
  case scSMaxExpr:
  case scUMinExpr:
  case scSMinExpr: {
    auto *N = cast<SCEVNAryExpr>(S);
    std::optional<APInt> Acc;
    for (const SCEV *Op : N->operands()) {
      auto V = evalAt(Op, L, k, budget);
      if (!V || V->getBitWidth() != W)
        return std::nullopt;
      if (!Acc) {
        Acc = *V;
        continue;
      }
      switch (S->getSCEVType()) {
      case scAddExpr: *Acc += *V; break;
      case scMulExpr: *Acc *= *V; break;
      case scUMaxExpr: Acc = APIntOps::umax(*Acc, *V); break;
      case scSMaxExpr: Acc = APIntOps::smax(*Acc, *V); break;
      case scUMinExpr: Acc = APIntOps::umin(*Acc, *V); break;
      default: Acc = APIntOps::smin(*Acc, *V); break;
      }
    }
    return Acc;
  }
  case scUDivExpr: {
    auto *D = cast<SCEVUDivExpr>(S);
    auto A = evalAt(D->getLHS(), L, k, budget), B = evalAt(D->getRHS(), L, k, budget);
    if (!A || !B || B->isZero())
      return std::nullopt;
    return A->udiv(*B);
  }
  case scAddRecExpr: {
    auto *AR = cast<SCEVAddRecExpr>(S);
    if (AR->getLoop() != L || !AR->isAffine())
      return std::nullopt;
    auto St = evalAt(AR->getStart(), L, k, budget), Sp = evalAt(AR->getOperand(1), L, k, budget);
    if (!St || !Sp)
      return std::nullopt;
    return *St + *Sp * APInt(W, k);
  }
  default:
    return std::nullopt;
  }
}

// The divisors a collapsed loop's index may have been split by: constant
// right-hand sides of `udiv`, and 2^w for a truncation to w bits (`urem`
// by a power of two).
void splitDivisors(const SCEV *S, std::set<uint64_t> &Out) {
  struct V {
    std::set<uint64_t> &Out;
    bool follow(const SCEV *X) {
      if (auto *D = dyn_cast<SCEVUDivExpr>(X))
        if (auto *K = dyn_cast<SCEVConstant>(D->getRHS()); K && K->getAPInt().getActiveBits() <= 32)
          Out.insert(K->getAPInt().getZExtValue());
      if (auto *T = dyn_cast<SCEVTruncateExpr>(X); T && T->getType()->getIntegerBitWidth() < 32)
        Out.insert(uint64_t(1) << T->getType()->getIntegerBitWidth());
      return true;
    }
    bool isDone() const { return false; }
  } Vis{Out};
  SCEVTraversal<V> T(Vis);
  T.visitAll(S);
}

// A store's offset O that varies with loop L in a way ScalarEvolution does
// not express as a recurrence (a collapsed loop nest: `k = iv / D`,
// `j = iv % D`), written exactly as a box over L's `count` iterations
// 0..count-1: O = Inv + v(iv), where Inv is the sum of O's terms invariant
// in L and v(iv) is computed by `evalAt`; one dimension (v(iv) = v(0) + iv
// * B for every iv) or two (iv = q * D + r with D dividing count: v(iv) =
// v(0) + q * A + r * B), checked at every iteration (at most 2^16, within
// `budget` nodes in all). Returns Inv + v(0) and the dimensions (stride,
// count), inner first.
// (v's SCEV, L, count) -> v(0) and the dimensions, or nothing: unrolled
// copies of a store differ only in the constant of the invariant part
using SplitCache = std::map<std::tuple<const SCEV *, const Loop *, uint64_t>,
                            std::optional<std::pair<APInt, std::vector<std::pair<int64_t, uint64_t>>>>>;

std::optional<std::pair<APInt, std::vector<std::pair<int64_t, uint64_t>>>>
splitVar(const SCEV *VarS, const Loop *L, uint64_t count, uint64_t &budget);

std::optional<std::pair<const SCEV *, std::vector<std::pair<int64_t, uint64_t>>>>
splitCollapsed(ScalarEvolution &SE, const SCEV *O, const Loop *L, uint64_t count, uint64_t &budget, SplitCache &Cache) {
  if (count < 2 || count > (1u << 16) || !O->getType()->isIntegerTy())
    return std::nullopt;
  SmallVector<const SCEV *, 4> Inv, Var;
  if (auto *A = dyn_cast<SCEVAddExpr>(O)) {
    for (const SCEV *Op : A->operands())
      (SE.isLoopInvariant(Op, L) ? Inv : Var).push_back(Op);
  } else {
    Var.push_back(O);
  }
  if (Var.empty())
    return std::nullopt;
  const SCEV *VarS = Var.size() == 1 ? Var[0] : SE.getAddExpr(Var);
  auto Key = std::make_tuple(VarS, L, count);
  auto It = Cache.find(Key);
  if (It == Cache.end())
    It = Cache.emplace(Key, splitVar(VarS, L, count, budget)).first;
  if (!It->second)
    return std::nullopt;
  Inv.push_back(SE.getConstant(It->second->first));
  return std::make_pair(Inv.size() == 1 ? Inv[0] : SE.getAddExpr(Inv), It->second->second);
}

// v(0) and the dimensions of `splitCollapsed` for the varying part VarS.
std::optional<std::pair<APInt, std::vector<std::pair<int64_t, uint64_t>>>>
splitVar(const SCEV *VarS, const Loop *L, uint64_t count, uint64_t &budget) {
  std::vector<APInt> v;
  v.reserve(count);
  for (uint64_t k = 0; k < count; ++k) {
    auto x = evalAt(VarS, L, k, budget);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  auto fits = [](const APInt &a) { return a.getSignificantBits() <= 48; };
  auto diff = [&](uint64_t k) { return v[k] - v[0]; };
  std::set<uint64_t> Ds;
  splitDivisors(VarS, Ds);
  Ds.insert(count); // one dimension
  for (uint64_t D : Ds) {
    if (D < 2 || D > count || count % D)
      continue;
    APInt B = diff(1), A = D < count ? diff(D) : APInt(B.getBitWidth(), 0);
    if (!fits(A) || !fits(B))
      continue;
    bool ok = true;
    for (uint64_t k = 0; k < count && ok; ++k)
      ok = diff(k) == A * APInt(A.getBitWidth(), k / D) + B * APInt(B.getBitWidth(), k % D);
    if (!ok)
      continue;
    std::vector<std::pair<int64_t, uint64_t>> dims{{B.getSExtValue(), D}};
    if (D < count)
      dims.push_back({A.getSExtValue(), count / D});
    return std::make_pair(v[0], dims);
  }
  return std::nullopt;
}

// Replaces the conditional branch `Br` by a branch to its successor `keep`
// (0 or 1); the other successor loses the edge. Nothing the clone's value
// map names is erased but through `forget` (a later instruction may reuse
// the address). False, and nothing changed, when both successors are the
// same block.
static bool cutToSuccessor(BranchInst *Br, unsigned keep, const std::function<void(Value *)> &forget) {
  BasicBlock *Keep = Br->getSuccessor(keep), *Drop = Br->getSuccessor(1 - keep);
  if (Drop == Keep)
    return false;
  Drop->removePredecessor(Br->getParent(), /*KeepOneInputPHIs=*/true);
  BranchInst::Create(Keep, Br->getIterator());
  forget(Br);
  Br->eraseFromParent();
  return true;
}

// LoopVectorize's overlap check between two pointers into distinct
// objects (issue #33: heap objects' stand-ins, globals): `icmp ult (sub
// (ptrtoint P), (ptrtoint Q)), K` (or `ule`), P and Q invariant addresses
// whose underlying objects are two different globals of the clone. Both
// sides of the check make the same memory accesses (that is what makes
// the versioning correct), so the facts of either describe the loop; the
// check is folded to "no overlap", which leaves the minimum-iterations
// test that `foldVectorChecks` takes (as for two globals, where the
// vectoriser emits none). Returns how many.
static unsigned foldDistinctOverlapChecks(Function &C, const std::function<void(Value *)> &forget) {
  // the object of the one `ptrtoint` among the leaves of an add tree (the
  // vectoriser adds the rows' offsets to the pointers it compares)
  std::function<GlobalVariable *(Value *, int)> objectOf = [&](Value *V, int depth) -> GlobalVariable * {
    if (auto *PI = dyn_cast<PtrToIntInst>(V))
      return dyn_cast<GlobalVariable>(getUnderlyingObject(PI->getPointerOperand(), 0));
    auto *BO = dyn_cast<BinaryOperator>(V);
    if (!BO || BO->getOpcode() != Instruction::Add || depth > 4)
      return nullptr;
    GlobalVariable *G0 = objectOf(BO->getOperand(0), depth + 1), *G1 = objectOf(BO->getOperand(1), depth + 1);
    // (exactly one side holds the pointer; the other is an offset)
    if (G0 && G1)
      return nullptr;
    return G0 ? G0 : G1;
  };
  auto distinctGlobals = [&](Value *A, Value *B) {
    GlobalVariable *GA = objectOf(A, 0), *GB = objectOf(B, 0);
    return GA && GB && GA != GB;
  };
  std::vector<ICmpInst *> Checks;
  for (auto &BB : C)
    for (auto &I : BB)
      if (auto *IC = dyn_cast<ICmpInst>(&I))
        if ((IC->getPredicate() == ICmpInst::ICMP_ULT || IC->getPredicate() == ICmpInst::ICMP_ULE) && isa<ConstantInt>(IC->getOperand(1)))
          if (auto *Sub = dyn_cast<BinaryOperator>(IC->getOperand(0)); Sub && Sub->getOpcode() == Instruction::Sub && distinctGlobals(Sub->getOperand(0), Sub->getOperand(1)))
            Checks.push_back(IC);
  unsigned n = 0;
  std::vector<Instruction *> Work;
  for (auto *IC : Checks) {
    for (User *U : IC->users())
      if (auto *UI = dyn_cast<Instruction>(U))
        Work.push_back(UI);
    IC->replaceAllUsesWith(ConstantInt::getFalse(IC->getType()));
    ++n;
  }
  // the checks or-ed together and with the minimum-iterations test
  // (`select %min.iters, true, %conflict`, `or i1 %a, %b`): simplified,
  // so the branch tests what is left
  const DataLayout &DL = C.getDataLayout();
  for (unsigned k = 0; k < Work.size() && k < 256; ++k) {
    Instruction *I = Work[k];
    if (!I->getType()->isIntegerTy(1) || !(isa<SelectInst>(I) || isa<BinaryOperator>(I)))
      continue;
    Value *V = simplifyInstruction(I, SimplifyQuery(DL));
    if (!V || V == I)
      continue;
    for (User *U : I->users())
      if (auto *UI = dyn_cast<Instruction>(U))
        Work.push_back(UI);
    I->replaceAllUsesWith(V);
    forget(I);
  }
  // a branch left on a constant: the edge it never takes goes
  for (auto &BB : C)
    if (auto *Br = dyn_cast<BranchInst>(BB.getTerminator()); Br && Br->isConditional() && n)
      if (auto *K = dyn_cast<ConstantInt>(Br->getCondition()))
        cutToSuccessor(Br, K->isZero() ? 1 : 0, forget);
  return n;
}

// LoopVectorize's runtime checks, folded towards the scalar loop in the
// scratch clone. A vectorised loop is versioned: a check (too few
// iterations: `min.iters.check`; pointers that may alias:
// `vector.memcheck`) branches to the vector loop or to a scalar copy of
// the same loop, and both exit to the same block (the vector one through
// its middle block, which may run the scalar copy on the remainder). Both
// versions perform the same memory accesses (that is what makes the
// versioning correct), so the facts of either describe the loop; keeping
// the branch made every store conditional, so nothing was killed, and the
// scalar copy entered from the check covers the whole range even when the
// count is symbolic. A
// branch is folded when its two sides lead (through blocks with one
// successor) straight to two loops at the branch's own depth, both marked
// `llvm.loop.isvectorized` (or holding such a loop: the check hoisted out
// of a loop unswitching versioned), one of them with wider vector memory
// accesses than the other (the scalar copy may hold SLP's narrow ones), whose stores carry the same set of source locations (the
// scalar one is the vectoriser's copy), and which leave to the same block
// (the vector one possibly through one middle block, or into the scalar
// copy, which runs the remainder). Returns how many.
unsigned foldVectorChecks(Function &C, const std::function<void(Value *)> &forget) {
  unsigned n = 0;
  for (int round = 0; round < 4; ++round) {
    DominatorTree DT(C);
    LoopInfo LI(DT);
    auto vectorized = [](Loop *L) {
      MDNode *MD = L->getLoopID();
      if (!MD)
        return false;
      for (const MDOperand &Op : MD->operands())
        if (auto *N = dyn_cast<MDNode>(Op.get()); N && N->getNumOperands() && isa<MDString>(N->getOperand(0)) &&
                                                  cast<MDString>(N->getOperand(0))->getString() == "llvm.loop.isvectorized")
          return true;
      return false;
    };
    // L or a loop inside it: the vectoriser's check may sit outside an
    // enclosing loop that loop unswitching versioned whole (NPB 3.3 BT's
    // `rhs = forcing` at -O3: the `j` loop in two copies, one holding the
    // vector loop and its remainder, the other the scalar copy)
    std::function<bool(Loop *)> anyVectorized = [&](Loop *L) {
      if (vectorized(L))
        return true;
      for (Loop *Sub : L->getSubLoops())
        if (anyVectorized(Sub))
          return true;
      return false;
    };
    // the widest vector load or store in L, in bytes (0: none); the
    // vector side's is wider than the scalar copy's, which may hold the
    // SLP vectoriser's narrow vectors (BT's `<2 x double>` beside the
    // vector loop's `<10 x double>`)
    auto vectorMem = [&](Loop *L) {
      uint64_t w = 0;
      for (BasicBlock *B : L->blocks())
        for (auto &I : *B) {
          Type *T = isa<LoadInst>(I) ? I.getType() : isa<StoreInst>(I) ? cast<StoreInst>(I).getValueOperand()->getType() : nullptr;
          if (T && T->isVectorTy())
            w = std::max<uint64_t>(w, C.getDataLayout().getTypeStoreSize(T).getKnownMinValue());
        }
      return w;
    };
    auto storeLocs = [](Loop *L) {
      std::set<std::pair<unsigned, unsigned>> S;
      for (BasicBlock *B : L->blocks())
        for (auto &I : *B)
          if (isa<StoreInst>(I) || isa<MemIntrinsic>(I)) {
            const DebugLoc &D = I.getDebugLoc();
            S.insert({D ? D.getLine() : 0, D ? D.getCol() : 0});
          }
      return S;
    };
    auto firstLoop = [&](BasicBlock *X, Loop *Outer) -> Loop * {
      for (int k = 0; X && k < 4; ++k) {
        Loop *L = LI.getLoopFor(X);
        if (L && L->getHeader() == X && L->getParentLoop() == Outer)
          return L;
        if (L != Outer)
          return nullptr;
        X = X->getSingleSuccessor();
      }
      return nullptr;
    };
    bool changed = false;
    for (auto &BB : C) {
      auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
      if (!Br || !Br->isConditional() || isa<Constant>(Br->getCondition()) || !DT.isReachableFromEntry(&BB))
        continue;
      Loop *Outer = LI.getLoopFor(&BB);
      Loop *A = firstLoop(Br->getSuccessor(0), Outer), *B = firstLoop(Br->getSuccessor(1), Outer);
      if (!A || !B || A == B || !anyVectorized(A) || !anyVectorized(B))
        continue;
      uint64_t wa = vectorMem(A), wb = vectorMem(B);
      if (wa == wb)
        continue;
      bool va = wa > wb;
      Loop *V = va ? A : B, *S = va ? B : A;
      auto LocsV = storeLocs(V), LocsS = storeLocs(S);
      if (LocsS.empty() || LocsV != LocsS)
        continue;
      BasicBlock *ES = S->getUniqueExitBlock(), *EV = V->getUniqueExitBlock();
      // (the vector loop leaves to the common exit, through a middle
      // block that may run the scalar copy on the remainder, or straight
      // into the scalar copy, which runs the remainder)
      if (!ES || !EV || !(EV == ES || EV->getSingleSuccessor() == ES ||
                          (isa<BranchInst>(EV->getTerminator()) && is_contained(successors(EV), ES)) || firstLoop(EV, Outer) == S))
        continue;
      // the scalar copy: on the check's edge it starts at the loop's own
      // start and runs the whole range, where the vector loop leaves a
      // remainder (which a symbolic count does not cover)
      if (!cutToSuccessor(Br, va ? 1 : 0, forget))
        continue;
      ++n;
      changed = true;
      break; // the analyses above are stale
    }
    if (!changed)
      break;
    // the vector loop and its middle block are no longer reachable: the
    // scalar loop's resume phis keep only the checks' edges (the loop's
    // start). The dead blocks stay (unreachable code is outside every
    // analysis).
    std::set<BasicBlock *> Live;
    std::vector<BasicBlock *> Work{&C.getEntryBlock()};
    while (!Work.empty()) {
      BasicBlock *B = Work.back();
      Work.pop_back();
      if (Live.insert(B).second)
        Work.insert(Work.end(), succ_begin(B), succ_end(B));
    }
    // dead blocks lose their edges (a terminator `unreachable`), so no
    // live block keeps a dead predecessor (walks up through single
    // predecessors, exiting blocks)
    for (auto &B : C) {
      if (Live.count(&B))
        continue;
      Instruction *T = B.getTerminator();
      if (!T || isa<UnreachableInst>(T))
        continue;
      for (BasicBlock *Sx : successors(&B))
        Sx->removePredecessor(&B, /*KeepOneInputPHIs=*/true);
      forget(T);
      T->eraseFromParent();
      new UnreachableInst(C.getContext(), &B);
    }
    for (BasicBlock *B : Live)
      for (auto It = B->begin(); It != B->end();) {
        auto *PN = dyn_cast<PHINode>(&*It++);
        if (!PN)
          break;
        // the one value all reachable edges bring, if any (the phi stays
        // whole otherwise: its entries must match its predecessors)
        Value *V = nullptr;
        bool one = true;
        for (unsigned k = 0; k < PN->getNumIncomingValues() && one; ++k)
          if (Live.count(PN->getIncomingBlock(k))) {
            Value *In = PN->getIncomingValue(k);
            if (In != PN && V && In != V)
              one = false;
            else if (In != PN)
              V = In;
          }
        if (one && V) {
          PN->replaceAllUsesWith(V);
          forget(PN);
          PN->eraseFromParent();
        }
      }
  }
  return n;
}

bool edgeImpliesEq(BasicBlock *Q, BasicBlock *P, Value *V, ConstantInt *C) {
  auto same = [&](Value *X, ConstantInt *K) {
    if (X == V)
      return K->getType() == C->getType() && K->getValue() == C->getValue();
    auto *T = dyn_cast<TruncInst>(X);
    return T && T->getOperand(0) == V && T->hasNoUnsignedWrap() &&
           K->getValue().zext(C->getBitWidth()) == C->getValue();
  };
  if (auto *SI = dyn_cast<SwitchInst>(Q->getTerminator())) {
    if (SI->getDefaultDest() == P)
      return false;
    bool any = false;
    for (auto &Case : SI->cases())
      if (Case.getCaseSuccessor() == P) {
        if (!same(SI->getCondition(), Case.getCaseValue()))
          return false;
        any = true;
      }
    return any;
  }
  auto *BI = dyn_cast<BranchInst>(Q->getTerminator());
  if (!BI || !BI->isConditional() || BI->getSuccessor(0) == BI->getSuccessor(1))
    return false;
  auto *Cmp = dyn_cast<ICmpInst>(BI->getCondition());
  if (!Cmp || !Cmp->isEquality())
    return false;
  auto *K = dyn_cast<ConstantInt>(Cmp->getOperand(1));
  if (!K || !same(Cmp->getOperand(0), K))
    return false;
  unsigned taken = Cmp->getPredicate() == ICmpInst::ICMP_EQ ? 0 : 1;
  return BI->getSuccessor(taken) == P;
}

// A set of integer phis whose incoming values are one value V or phis of
// the set is V (the SSA form of a variable stored once and reloaded on
// several paths). An optimistic fixpoint as for the bound phis below: every
// integer phi is a candidate; one with a second value, or whose value does
// not dominate it, drops out, until none does. The scratch clone only.
template <class Erased> void foldSameValuePhis(Function &F, Erased erased, bool pointers = false) {
  std::map<PHINode *, Value *> Cand;
  for (auto &BB : F)
    for (auto &PN : BB.phis())
      if (PN.getType()->isIntegerTy() || (pointers && PN.getType()->isPointerTy()))
        Cand[&PN] = nullptr;
  DominatorTree DT(F);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto It = Cand.begin(); It != Cand.end();) {
      PHINode *PN = It->first;
      Value *key = It->second;
      bool ok = true;
      for (Value *In : PN->incoming_values()) {
        Value *V = In;
        if (auto *Q = dyn_cast<PHINode>(In); Q && Cand.count(Q)) {
          V = Cand[Q];
          if (!V)
            continue;
        }
        if (key && key != V)
          ok = false;
        key = V;
      }
      if (auto *KI = dyn_cast_or_null<Instruction>(key); KI && !DT.dominates(KI, PN))
        ok = false;
      if (!ok) {
        It = Cand.erase(It);
        changed = true;
        continue;
      }
      if (key && !It->second) {
        It->second = key;
        changed = true;
      }
      ++It;
    }
  }
  for (auto &[PN, V] : Cand)
    if (V) {
      PN->replaceAllUsesWith(V);
      erased(PN);
      PN->eraseFromParent();
    }
}

// `sext` / `zext` of an affine recurrence `{a,+,s}<L>` of constants, as the
// recurrence of the extended values `{ext a,+,ext s}<L>` when no value it
// takes in L can wrap: a + s*k stays in the narrow type's range for every
// k up to L's symbolic maximum backedge-taken count, bounded through the
// conditions that guard L (NPB SP's orphaned `omp for` over `k <=
// grid_points[2]-1`, an unsigned compare: ScalarEvolution keeps the
// `sext` of the 32-bit induction variable outside, and the offset is no
// recurrence). Exact on every iteration that runs, so also sound for
// must-boxes. The scratch clone's analyses only.
class DaoExtDistributor : public SCEVRewriteVisitor<DaoExtDistributor> {
  using Base = SCEVRewriteVisitor<DaoExtDistributor>;

public:
  explicit DaoExtDistributor(ScalarEvolution &SE) : Base(SE) {}
  const SCEV *visitSignExtendExpr(const SCEVSignExtendExpr *E) { return widen(E, true); }
  const SCEV *visitZeroExtendExpr(const SCEVZeroExtendExpr *E) { return widen(E, false); }

private:
  const SCEV *widen(const SCEVCastExpr *E, bool sgn) {
    auto *AR = dyn_cast<SCEVAddRecExpr>(E->getOperand());
    auto same = [&]() -> const SCEV * { return sgn ? SE.getSignExtendExpr(visit(E->getOperand()), E->getType()) : SE.getZeroExtendExpr(visit(E->getOperand()), E->getType()); };
    if (!AR || !AR->isAffine())
      return same();
    auto *A = dyn_cast<SCEVConstant>(AR->getStart());
    auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    const Loop *L = AR->getLoop();
    if (!A || !St)
      return same();
    const SCEV *M = SE.getSymbolicMaxBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(M)) {
      if (debugLoops())
        errs() << "dao-debug: widen " << *E << ": no max btc (exact " << *SE.getBackedgeTakenCount(L) << ")\n";
      return same();
    }
    M = SE.applyLoopGuards(M, L);
    APInt Max = SE.getUnsignedRangeMax(M);
    if (debugLoops())
      errs() << "dao-debug: widen " << *E << ": max btc " << *M << " <= " << Max << "\n";
    unsigned w = AR->getType()->getIntegerBitWidth();
    if (Max.getActiveBits() > 40 || w > 64)
      return same();
    // a + s*k for k in [0, Max], in 128 bits
    APInt a = sgn ? A->getAPInt().sext(128) : A->getAPInt().zext(128);
    APInt s = St->getAPInt().sext(128);
    APInt last = a + s * Max.zext(128);
    APInt lo = a.slt(last) ? a : last, hi = a.slt(last) ? last : a;
    APInt tmin = sgn ? APInt::getSignedMinValue(w).sext(128) : APInt(128, 0);
    APInt tmax = sgn ? APInt::getSignedMaxValue(w).sext(128) : APInt::getMaxValue(w).zext(128);
    if (lo.slt(tmin) || hi.sgt(tmax))
      return same();
    Type *T = E->getType();
    const SCEV *S0 = sgn ? SE.getSignExtendExpr(A, T) : SE.getZeroExtendExpr(A, T);
    const SCEV *S1 = SE.getSignExtendExpr(St, T); // the step is signed either way
    return SE.getAddRecExpr(S0, S1, L, SCEV::FlagAnyWrap);
  }
};

// The conditions a loop is entered under, as `llvm.assume`s before the
// loop's predecessor's branch: every integer compare whose branch edge
// dominates the loop's header (up the dominator tree). ScalarEvolution
// climbs from a loop only through blocks with one predecessor, so it does
// not see the guard `n > 0` of the vectoriser's scalar copy (entered from
// the vector checks and the middle block); it reads assumptions. Each
// holds where it is put: the edge's target S dominates the header, so
// every path from the guard to the predecessor passes S, unless S is the
// header itself (the guard is the predecessor, whose other side leaves
// the loop: not used). The scratch clone only.
void assumeLoopGuards(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  // (before, compare, whether it holds or its negation does)
  std::set<std::tuple<Instruction *, ICmpInst *, bool>> Add;
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *P = L->getLoopPredecessor();
    if (!P || !DT.isReachableFromEntry(P))
      continue;
    for (auto *N = DT.getNode(L->getHeader())->getIDom(); N; N = N->getIDom()) {
      auto *GB = dyn_cast<BranchInst>(N->getBlock()->getTerminator());
      auto *GC = GB && GB->isConditional() ? dyn_cast<ICmpInst>(GB->getCondition()) : nullptr;
      if (!GC || GB->getSuccessor(0) == GB->getSuccessor(1) || !GC->getOperand(0)->getType()->isIntegerTy())
        continue;
      // (an edge straight into the header leaves the predecessor itself,
      // where the other side runs too: not put there)
      for (unsigned t = 0; t < 2; ++t)
        if (GB->getSuccessor(t) != L->getHeader() && DT.dominates(BasicBlockEdge(N->getBlock(), GB->getSuccessor(t)), L->getHeader()))
          Add.insert({P->getTerminator(), GC, t == 0});
    }
  }
  for (auto &[At, GC, holds] : Add) {
    IRBuilder<> IB(At);
    IB.CreateAssumption(holds ? (Value *)GC : IB.CreateNot(GC));
  }
}

// A loop's exit test `A >u X - 1` (`X - 1` an `add nsw X, -1`) is `A >=u X`
// while X is not 0: rewritten when the loop is entered only under a
// condition that makes X, invariant in the loop, positive or non-zero (a
// worksharing loop `k <= n - 1` with the unsigned iteration variable
// `__kmpc_for_static_init_4u` asks for, guarded by `n > 0`: for `<=u`
// ScalarEvolution gives no count, since `n - 1` could be the largest
// value; for `<u` it does). The scratch clone only.
template <class Erased> void unsignedBoundMinusOne(Function &F, Erased erased) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  TargetLibraryInfoImpl TLII(Triple(F.getParent()->getTargetTriple()));
  TargetLibraryInfo TLI(TLII);
  AssumptionCache AC(F);
  ScalarEvolution SE(F, TLI, AC, DT, LI);
  std::vector<std::tuple<ICmpInst *, Value *, Value *>> Rw; // test, A, X
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *E = L->getExitingBlock();
    auto *Br = E ? dyn_cast<BranchInst>(E->getTerminator()) : nullptr;
    auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    if (!Cmp || !Cmp->hasOneUse())
      continue;
    // A >u B, or B <u A
    Value *A = Cmp->getOperand(0), *B = Cmp->getOperand(1);
    if (Cmp->getPredicate() == ICmpInst::ICMP_ULT)
      std::swap(A, B);
    else if (Cmp->getPredicate() != ICmpInst::ICMP_UGT)
      continue;
    if (debugLoops())
      errs() << "dao-debug: unsigned exit test " << *Cmp << " in " << L->getHeader()->getName() << "\n";
    auto *Sub = dyn_cast<BinaryOperator>(B);
    auto *M1 = Sub && Sub->getOpcode() == Instruction::Add ? dyn_cast<ConstantInt>(Sub->getOperand(1)) : nullptr;
    if (!M1 || !M1->isMinusOne() || !Sub->hasNoSignedWrap() || L->contains(Sub)) {
      if (debugLoops())
        errs() << "dao-debug:   not X - 1: " << *B << "\n";
      continue;
    }
    Value *X = Sub->getOperand(0);
    const SCEV *XS = SE.getSCEV(X);
    const SCEV *Z = SE.getZero(X->getType());
    bool inv = SE.isLoopInvariant(XS, L);
    bool pos = inv && (SE.isLoopEntryGuardedByCond(L, ICmpInst::ICMP_SGT, XS, Z) || SE.isLoopEntryGuardedByCond(L, ICmpInst::ICMP_NE, XS, Z));
    if (debugLoops())
      errs() << "dao-debug:   bound " << *XS << " invariant " << inv << " positive " << pos << "\n";
    if (!pos)
      continue;
    Rw.push_back({Cmp, A, X});
  }
  for (auto &[Cmp, A, X] : Rw) {
    auto *N = new ICmpInst(Cmp, ICmpInst::ICMP_UGE, A, X, Cmp->getName() + ".dao");
    Cmp->replaceAllUsesWith(N);
    erased(Cmp);
    Cmp->eraseFromParent();
  }
}

// Undo jump threading's copies of a value in the scratch clone: a phi whose
// incoming values are one value V or constants, each constant arriving from
// a block that control can enter only when V equals it, is V (NPB BT's
// inlined stencil switches on `i`, and GVN turns the index `i` after the
// switch into `phi [1, case 1], [2, case 2], ..., [i, default]`, which
// ScalarEvolution cannot see through). The value is exactly V on every
// edge, so replacing the phi changes no fact the analysis derives.
void undoThreadedCopies(Function &F) {
  std::vector<PHINode *> cands;
  for (auto &BB : F)
    for (auto &Phi : BB.phis()) {
      Value *V = nullptr;
      bool konst = false, ok = true;
      for (Value *In : Phi.incoming_values()) {
        if (isa<ConstantInt>(In)) {
          konst = true;
        } else if (!V || V == In) {
          V = In;
        } else {
          ok = false;
          break;
        }
      }
      if (ok && konst && V && V != &Phi && V->getType()->isIntegerTy())
        cands.push_back(&Phi);
    }
  if (cands.empty())
    return;
  DominatorTree DT(F);
  for (PHINode *Phi : cands) {
    Value *V = nullptr;
    for (Value *In : Phi->incoming_values())
      if (!isa<ConstantInt>(In))
        V = In;
    // V is defined strictly above the phi's block and each block P below:
    // the instance a test before P saw is the one the phi's block sees
    auto *VI = dyn_cast<Instruction>(V);
    auto above = [&](BasicBlock *X) { return !VI || DT.properlyDominates(VI->getParent(), X); };
    if (!above(Phi->getParent()))
      continue;
    // every entry of P is an edge that implies V == C, or an unconditional
    // branch from a block whose entries all do (a few levels)
    ConstantInt *C = nullptr;
    std::function<bool(BasicBlock *, unsigned)> entersOnlyIf = [&](BasicBlock *P, unsigned depth) {
      if (pred_empty(P) || !above(P))
        return false;
      for (BasicBlock *Q : predecessors(P))
        if (!edgeImpliesEq(Q, P, V, C) && !(depth && Q->getSingleSuccessor() == P && Q != P && entersOnlyIf(Q, depth - 1)))
          return false;
      return true;
    };
    bool ok = true;
    for (unsigned k = 0; ok && k < Phi->getNumIncomingValues(); ++k) {
      C = dyn_cast<ConstantInt>(Phi->getIncomingValue(k));
      if (!C)
        continue;
      BasicBlock *P = Phi->getIncomingBlock(k);
      ok = P != Phi->getParent() && entersOnlyIf(P, 2);
    }
    if (ok)
      Phi->replaceAllUsesWith(V);
  }
}

} // namespace

extern "C" {
struct DaoSectionOut {
  unsigned loop;
  LLVMValueRef base;
  int64_t start;
  uint64_t size;
  unsigned ndims;
  int64_t stride[8];
  uint64_t count[8];
  unsigned symMask;
  LLVMValueRef symGlobal[8];
  int64_t symOff[8];
  unsigned symBytes[8];
  int symSigned[8];
  int64_t symAdd[8];
  int64_t symLow[8];
  // requirements of inner loops' guards: the bound load (global, offset,
  // bytes, signed) must be at least reqMin
  unsigned nreqs;
  LLVMValueRef reqGlobal[4];
  int64_t reqOff[4];
  unsigned reqBytes[4];
  int reqSigned[4];
  int64_t reqMin[4];
  // reads only: a symbolic dim's count is at most max(symFloor, symAdd +
  // the value), the value at least symLow
  int64_t symFloor[8];
  // writes: a symbolic dim's count is symAdd + floor((the value + symPre)
  // / symDiv) (symDiv 1, symPre 0: symAdd + the value)
  int64_t symDiv[8];
  int64_t symPre[8];
  // a requirement's value must also be at most reqMax (INT64_MAX: no bound)
  int64_t reqMax[4];
  // writes (heap objects): a symbolic dim's count times symMul[d], or
  // times symAdd2[d] + the value of (symG2[d], symOff2[d], symBytes2[d],
  // symSigned2[d]) when symG2[d] is set
  LLVMValueRef symG2[8];
  int64_t symOff2[8];
  unsigned symBytes2[8];
  int symSigned2[8];
  int64_t symAdd2[8];
  uint64_t symMul[8];
};
struct DaoLoopOut {
  LLVMBasicBlockRef preheader, header;
  LLVMValueRef init;
  unsigned nblocks;
  unsigned stores, sections;
  LLVMBasicBlockRef guardTop;
  unsigned nguardChain, nguardReqs;
};
// Requirement j of loop i's guard chain: the bound load (as in
// DaoSectionOut's sym fields) must be at least `min`.
struct DaoGuardReqOut {
  LLVMValueRef global;
  int64_t off;
  unsigned bytes;
  int sgn;
  int64_t min;
};

// `inits`: the function's static worksharing init calls (the Rust side
// finds them in the table of runtime functions, pass/analysis/src/known.rs).
// `elig`: globals a loop bound may be read from (the Rust side proves that
// every write of one is a store, memset or memcpy naming it, in a function
// of this module called only directly or by a fork, `cond.rs`), and the
// pairs (writerGlobals[i], writerFuncs[i]): the defined functions that may
// write each, their callees' writes included.
//
// `bindArg`, `bindSlot`, `bindGlobal` (nBind entries): the facts of the
// function specialised to one call site (`front.rs`, `Bind`): argument
// bindArg[i] is the address of global bindGlobal[i] (bindSlot[i] == 0), or
// points to a block that holds that address at byte offset bindSlot[i] - 1
// for the whole call, and the function only loads it (a parallel region's
// by-reference capture of a pointer, or a field of flang's argument
// struct). In the clone the argument, or every load of that slot, is
// replaced by the global, so its accesses get boxes of the global. A
// ConstantInt in bindGlobal[i] says that integer argument bindArg[i] is
// that constant at the call (`CONST_ARG`): it is replaced by it.
// The one value every store of the module gives the `bytes`-wide integer at
// `off` of G, or nothing: G's address is only loaded from and stored to
// (through constant offsets), every store that touches those bytes stores
// exactly them, a constant integer, and all such constants are equal.
static std::optional<int64_t> storedConstant(GlobalVariable *G, int64_t off, unsigned bytes) {
  const DataLayout &DL = G->getParent()->getDataLayout();
  std::optional<int64_t> v;
  std::vector<Value *> Work{G};
  std::set<Value *> Seen;
  while (!Work.empty()) {
    Value *P = Work.back();
    Work.pop_back();
    if (!Seen.insert(P).second)
      continue;
    for (User *U : P->users()) {
      if (isa<GEPOperator>(U) || isa<BitCastOperator>(U)) {
        Work.push_back(U);
        continue;
      }
      if (auto *LD = dyn_cast<LoadInst>(U); LD && LD->getPointerOperand() == P)
        continue;
      auto *SI = dyn_cast<StoreInst>(U);
      if (!SI || SI->getPointerOperand() != P || SI->getValueOperand() == P)
        return std::nullopt;
      APInt Off(DL.getIndexTypeSizeInBits(P->getType()), 0);
      if (P->stripAndAccumulateConstantOffsets(DL, Off, true) != G || Off.getSignificantBits() > 48)
        return std::nullopt;
      int64_t o = Off.getSExtValue();
      int64_t sz = (int64_t)DL.getTypeStoreSize(SI->getValueOperand()->getType()).getFixedValue();
      if (o + sz <= off || o >= off + (int64_t)bytes)
        continue;
      auto *K = dyn_cast<ConstantInt>(SI->getValueOperand());
      if (o != off || sz != (int64_t)bytes || !K || K->getValue().getSignificantBits() > 31)
        return std::nullopt;
      int64_t k = K->getSExtValue();
      if (v && *v != k)
        return std::nullopt;
      v = k;
    }
  }
  return v;
}

// A block that ends the program without reading program memory: its
// terminator is `unreachable` (after `exit`, `abort`, a failed assertion),
// or it branches straight to such a block (a short chain), and on the way
// nothing reads memory but a load of another module's global (`stderr`)
// and calls of the C or Fortran runtime's printing and stopping functions
// whose pointer arguments are constants (a format string). A write run
// (below) cuts the branches to such blocks: what a loop writes is what it
// has written when it completes, and on the path to a dead end it never
// does. The reads on that path are not looked at by the kills, which sit
// before the loop (the path leaves the loop's blocks), so there must be
// none. (Handlers `atexit` registered run at `exit`: as everywhere in the
// analysis, `exit` is taken to read nothing of the program.)
static bool deadEnd(BasicBlock *B) {
  static const std::set<std::string> Quiet = {
      "printf", "fprintf", "puts", "fputs", "fputc", "putchar", "perror", "fflush", "exit", "_exit", "abort", "__assert_fail",
      "_FortranAStopStatement", "_FortranAStopStatementText", "_FortranAExit", "_FortranAioBeginExternalListOutput",
      "_FortranAioOutputAscii", "_FortranAioOutputInteger32", "_FortranAioOutputInteger64", "_FortranAioOutputReal64",
      "_FortranAioOutputReal32", "_FortranAioEndIoStatement"};
  for (int k = 0; B && k < 4; ++k) {
    for (auto &I : *B) {
      if (!I.mayReadFromMemory())
        continue;
      if (auto *LD = dyn_cast<LoadInst>(&I)) {
        auto *GV = dyn_cast<GlobalVariable>(LD->getPointerOperand()->stripPointerCasts());
        if (GV && GV->isDeclaration())
          continue;
        return false;
      }
      auto *CB = dyn_cast<CallBase>(&I);
      Function *Fn = CB ? CB->getCalledFunction() : nullptr;
      if (!Fn || !Fn->isDeclaration() || !Quiet.count(Fn->getName().str()))
        return false;
      for (Value *A : CB->args())
        if (A->getType()->isPointerTy()) {
          auto *GV = dyn_cast<GlobalVariable>(A->stripPointerCasts());
          auto *LA = dyn_cast<LoadInst>(A);
          auto *LG = LA ? dyn_cast<GlobalVariable>(LA->getPointerOperand()->stripPointerCasts()) : nullptr;
          if (!(GV && GV->isConstant()) && !(LG && LG->isDeclaration()))
            return false;
        }
    }
    if (isa<UnreachableInst>(B->getTerminator()))
      return true;
    B = B->getSingleSuccessor();
  }
  return false;
}

// DAO_PASS_TIME=1 (timing.rs): the time of each phase of the loop facts,
// summed over the module's runs, printed with the pass's own phases.
namespace {
struct ShimPhase {
  const char *name;
  double ms;
};
ShimPhase shimPhases[] = {{"shim: clone", 0},        {"shim: prepare the clone", 0}, {"shim: bounds from globals", 0},
                          {"shim: folds", 0},        {"shim: loops", 0},             {"shim: write sections", 0},
                          {"shim: guards, edges", 0}, {"shim: reads", 0},             {"shim: relative reads", 0},
                          {"shim: erase the clone", 0}, {"shim: free the analyses", 0}};
bool shimTimeOn() {
  static const bool On = [] {
    const char *V = getenv("DAO_PASS_TIME");
    return V && (!strcmp(V, "1") || !strcmp(V, "2"));
  }();
  return On;
}
// Adds the time since the last lap to phase `k`.
struct ShimLap {
  bool On = shimTimeOn();
  std::chrono::steady_clock::time_point T = On ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  void operator()(unsigned K) {
    if (!On)
      return;
    auto N = std::chrono::steady_clock::now();
    shimPhases[K].ms += std::chrono::duration<double, std::milli>(N - T).count();
    T = N;
  }
};
} // namespace

extern "C" unsigned dao_cxx_shim_phase(unsigned i, const char **name, double *ms) {
  if (i >= sizeof(shimPhases) / sizeof(shimPhases[0]))
    return 0;
  *name = shimPhases[i].name;
  *ms = shimPhases[i].ms;
  shimPhases[i].ms = 0;
  return 1;
}

// `repl` (issue #33, heap objects): values of the function (the
// allocation call of a heap object, loads and parameters that certainly
// hold its address) and the stand-in global of the object, a global of a
// scratch module in the same context: in the clone each is replaced by its
// stand-in, so the accesses through it get boxes of that "global" (the
// Rust side maps it back to the object, heap.rs).
struct Repl {
  LLVMValueRef *from;
  LLVMValueRef *to;
  unsigned n;
};

static DaoLoopFacts *loopFactsRun(Function *F, LLVMValueRef *initCalls, unsigned nInits, LLVMValueRef *elig, unsigned nElig,
                                  LLVMValueRef *writerGlobals, LLVMValueRef *writerFuncs, unsigned nWriters,
                                  unsigned *bindArg, int64_t *bindSlot, LLVMValueRef *bindGlobal, unsigned nBind,
                                  const Repl &repl, const std::vector<DaoPin> *pins) {
  auto *Out = new DaoLoopFacts();
  // the writes-only run (`pins` given): the pinned values in place of their
  // bound loads, branches to dead ends cut, only the write sections kept
  bool writesOnly = pins != nullptr;
  if (debugLoops())
    errs() << "dao-debug: shim facts of " << F->getName() << (writesOnly ? " (writes only)" : "") << " (" << nElig << " eligible globals, " << nWriters << " writers, " << nBind << " bindings)\n";
  if (F->isDeclaration())
    return Out;
  ShimLap lap;
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(F, VMap);
  DenseMap<const Value *, Value *> Back;
  for (auto KV : VMap)
    if (Value *Cl = KV.second)
      Back[Cl] = const_cast<Value *>(KV.first);
  for (unsigned i = 0; i < repl.n; ++i) {
    auto It = VMap.find(unwrap(repl.from[i]));
    Value *To = unwrap(repl.to[i]);
    if (It != VMap.end() && It->second && It->second->getType() == To->getType())
      It->second->replaceAllUsesWith(To);
  }
  lap(0);
  // the team view: delete the static worksharing inits
  std::vector<CallInst *> inits;
  for (unsigned i = 0; i < nInits; ++i)
    if (auto *CI = dyn_cast_or_null<CallInst>(static_cast<Value *>(VMap[unwrap(initCalls[i])])))
      inits.push_back(CI);
  std::map<BasicBlock *, Instruction *> initBlock; // clone block -> original call
  for (auto *CI : inits)
    initBlock[CI->getParent()] = cast<Instruction>(Back[CI]);
  // (erased clone values leave the value map: a later instruction may
  // reuse the address)
  for (auto *CI : inits) {
    Back.erase(CI);
    CI->eraseFromParent();
  }
  Out->team = !inits.empty();
  {
    // flang puts a region's allocas in a block after the entry: fixed-size
    // allocas outside every loop move to the entry block first
    {
      DominatorTree DTm(*C);
      LoopInfo LIm(DTm);
      Instruction *At = &*C->getEntryBlock().getFirstInsertionPt();
      std::vector<AllocaInst *> moved;
      for (auto &BB : *C)
        if (&BB != &C->getEntryBlock() && !LIm.getLoopFor(&BB))
          for (auto &I : BB)
            if (auto *AI = dyn_cast<AllocaInst>(&I))
              if (isa<ConstantInt>(AI->getArraySize()))
                moved.push_back(AI);
      for (auto *AI : moved)
        AI->moveBefore(At);
    }
    std::vector<AllocaInst *> promo;
    for (auto &I : C->getEntryBlock())
      if (auto *AI = dyn_cast<AllocaInst>(&I))
        if (isAllocaPromotable(AI))
          promo.push_back(AI);
    if (!promo.empty()) {
      DominatorTree DTp(*C);
      PromoteMemToReg(promo, DTp);
    }
  }
  // the arguments bound to globals (after promotion: -O0's copies of an
  // argument into a local slot are gone, the loads are of the argument)
  for (unsigned i = 0; i < nBind; ++i) {
    if (bindArg[i] >= C->arg_size())
      continue;
    Argument *A = C->getArg(bindArg[i]);
    Value *G = unwrap(bindGlobal[i]);
    // an integer argument that is a constant at the call site analysed
    // (`CONST_ARG`: device.rs binds a parallel region's chunk bounds to
    // the whole range)
    if (auto *K = dyn_cast<ConstantInt>(G)) {
      if (A->getType()->isIntegerTy())
        A->replaceAllUsesWith(ConstantInt::getSigned(A->getType(), K->getSExtValue()));
      continue;
    }
    if (!A->getType()->isPointerTy() || G->getType() != A->getType())
      continue;
    if (!bindSlot[i]) {
      A->replaceAllUsesWith(G);
      continue;
    }
    // the loads of the slot at byte offset bindSlot[i] - 1 of the block
    // the argument points to
    const DataLayout &DLb = C->getParent()->getDataLayout();
    std::vector<LoadInst *> Lds;
    for (auto &BB : *C)
      for (auto &I : BB)
        if (auto *LD = dyn_cast<LoadInst>(&I); LD && LD->getType() == G->getType()) {
          APInt Off(DLb.getIndexTypeSizeInBits(A->getType()), 0);
          if (LD->getPointerOperand()->stripAndAccumulateConstantOffsets(DLb, Off, true) == A && Off.getSignificantBits() <= 48 &&
              Off.getSExtValue() == bindSlot[i] - 1)
            Lds.push_back(LD);
        }
    for (auto *LD : Lds)
      LD->replaceAllUsesWith(G);
  }
  // Phis of one value, pointers too (`foldSameValuePhis`): -O2 reloads a
  // bound slot after every call in a loop and merges the reloads by phis
  // (NPB FT's `cffts1` regions reload the captured `d` around `cfftz`);
  // once the loads are the bound global, those phis hide it from the bound
  // loads below.
  if (nBind)
    foldSameValuePhis(*C, [&](Value *V) { Back.erase(V); }, true);
  // the blocks the folds cut off (reachable before, not after: nothing
  // the team view or an earlier step made unreachable)
  auto reachable = [&]() {
    std::set<BasicBlock *> Live;
    for (BasicBlock *B : depth_first(&C->getEntryBlock()))
      Live.insert(B);
    return Live;
  };
  std::set<BasicBlock *> liveBefore = reachable();
  if (repl.n || nBind)
    foldDistinctOverlapChecks(*C, [&](Value *V) { Back.erase(V); });
  if (foldVectorChecks(*C, [&](Value *V) { Back.erase(V); })) {
    std::set<BasicBlock *> liveAfter = reachable();
    std::vector<BasicBlock *> dead;
    for (BasicBlock *B : liveBefore)
      if (!liveAfter.count(B)) {
        if (auto It = Back.find(B); It != Back.end() && isa<BasicBlock>(It->second))
          Out->dropped.push_back(cast<BasicBlock>(It->second));
        dead.push_back(B);
      }
    // (deleted: a block cut off would still count as a predecessor of
    // the scalar loop's entry, whose guards the walks below follow up
    // through blocks of one predecessor; issue #33's vectorised nests over
    // heap blocks)
    for (BasicBlock *B : dead) {
      for (Instruction &I : *B)
        Back.erase(&I);
      Back.erase(B);
    }
    DeleteDeadBlocks(dead);
  }
  // Shapes -O3 leaves that ScalarEvolution does not see through (issue
  // #33, NPB BT's lhsy): `freeze` of a load of a global (a global's bytes
  // are never undef or poison: the load's value itself), and a phi whose
  // incoming values are the same operation on the same operands (GVN's
  // `pre-phi` of `j + 1` computed on two paths into a loop latch: one
  // instruction in the phi's block, so the induction variable is an add
  // recurrence again). In the clone only.
  {
    std::vector<FreezeInst *> Frz;
    for (auto &BB : *C)
      for (auto &I : BB)
        if (auto *FI = dyn_cast<FreezeInst>(&I))
          if (auto *LD = dyn_cast<LoadInst>(FI->getOperand(0)); LD && LD->isSimple() && isa<GlobalVariable>(getUnderlyingObject(LD->getPointerOperand(), 0)))
            Frz.push_back(FI);
    for (auto *FI : Frz) {
      FI->replaceAllUsesWith(FI->getOperand(0));
      Back.erase(FI);
      FI->eraseFromParent();
    }
    DominatorTree DTp(*C);
    std::vector<PHINode *> Same;
    for (auto &BB : *C)
      for (auto &PN : BB.phis()) {
        auto *B0 = PN.getNumIncomingValues() >= 2 ? dyn_cast<BinaryOperator>(PN.getIncomingValue(0)) : nullptr;
        if (!B0)
          continue;
        bool same = true;
        for (Value *In : PN.incoming_values()) {
          auto *Bk = dyn_cast<BinaryOperator>(In);
          same = same && Bk && Bk->getOpcode() == B0->getOpcode() && Bk->getOperand(0) == B0->getOperand(0) && Bk->getOperand(1) == B0->getOperand(1);
        }
        for (Value *Op : B0->operands())
          if (auto *OI = dyn_cast<Instruction>(Op))
            same = same && OI != &PN && DTp.dominates(OI, &PN);
        if (same)
          Same.push_back(&PN);
      }
    for (auto *PN : Same) {
      auto *B0 = cast<BinaryOperator>(PN->getIncomingValue(0));
      auto *N = BinaryOperator::Create(B0->getOpcode(), B0->getOperand(0), B0->getOperand(1), PN->getName() + ".dao");
      // the flags every copy has
      N->copyIRFlags(B0);
      for (Value *In : PN->incoming_values())
        N->andIRFlags(cast<BinaryOperator>(In));
      N->insertBefore(&*PN->getParent()->getFirstInsertionPt());
      PN->replaceAllUsesWith(N);
      Back.erase(PN);
      PN->eraseFromParent();
    }
  }
  // Loop bounds read from memory (issue #15, runtime-checked conditions):
  // integer loads at a constant offset of an eligible global (see `elig`
  // below) become the unknowns of symbolic counts, when the value loaded
  // is the one a loop sees: a load inside a loop nest is moved to the
  // preheader of the outermost loop around it that writes the global
  // nowhere (the loads inside all read that value); a load outside loops
  // counts when no write of the global is reachable from it. (In the
  // clone only; the old loads stay, unused: the value map names them.)
  lap(1);
  std::map<LoadInst *, DaoSym> symOf;
  std::map<PHINode *, DaoSym> symPhi;
  if (nElig) {
    const DataLayout &DL = C->getParent()->getDataLayout();
    std::map<Value *, std::set<Value *>> Writers;
    for (unsigned i = 0; i < nElig; ++i)
      Writers[unwrap(elig[i])];
    for (unsigned i = 0; i < nWriters; ++i)
      Writers[unwrap(writerGlobals[i])].insert(unwrap(writerFuncs[i]));
    auto writes = [&](Instruction &I, Value *G) -> bool {
      Value *P = nullptr;
      if (auto *SI = dyn_cast<StoreInst>(&I))
        P = SI->getPointerOperand();
      else if (auto *MI = dyn_cast<MemIntrinsic>(&I))
        P = MI->getDest();
      else if (auto *A = dyn_cast<AtomicRMWInst>(&I))
        P = A->getPointerOperand();
      else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
        P = X->getPointerOperand();
      if (P)
        return getUnderlyingObject(P, 0) == G;
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (auto *II = dyn_cast<IntrinsicInst>(CB); II && II->isLifetimeStartOrEnd())
          return getUnderlyingObject(II->getArgOperand(1), 0) == G;
        // a global other modules can name: code this module does not see
        // may write it (the declared functions that may run such code are
        // among its writers; an indirect call or inline asm may too)
        if (!cast<GlobalValue>(G)->hasLocalLinkage() && !CB->getCalledFunction() && !isa<IntrinsicInst>(CB))
          return true;
        auto &W = Writers[G];
        for (Value *Op : CB->operands())
          if (W.count(Op->stripPointerCasts()))
            return true;
      }
      return false;
    };
    DominatorTree DTh(*C);
    LoopInfo LIh(DTh);
    std::map<std::pair<Loop *, Value *>, bool> loopWrites;
    auto inLoopWrites = [&](Loop *X, Value *G) -> bool {
      auto Key = std::make_pair(X, G);
      auto It = loopWrites.find(Key);
      if (It != loopWrites.end())
        return It->second;
      bool w = false;
      for (BasicBlock *B : X->blocks())
        for (auto &I : *B)
          w = w || writes(I, G);
      return loopWrites[Key] = w;
    };
    auto reachableWrite = [&](LoadInst *LD, Value *G) -> bool {
      for (auto It = std::next(LD->getIterator()); It != LD->getParent()->end(); ++It)
        if (writes(*It, G))
          return true;
      std::set<BasicBlock *> Seen;
      std::vector<BasicBlock *> Work(succ_begin(LD->getParent()), succ_end(LD->getParent()));
      while (!Work.empty()) {
        BasicBlock *B = Work.back();
        Work.pop_back();
        if (!Seen.insert(B).second)
          continue;
        for (auto &I : *B)
          if (writes(I, G))
            return true;
        Work.insert(Work.end(), succ_begin(B), succ_end(B));
      }
      return false;
    };
    std::map<std::tuple<Loop *, Value *, int64_t, Type *>, LoadInst *> Hoisted;
    std::vector<LoadInst *> loads;
    for (auto &BB : *C)
      for (auto &I : BB)
        if (auto *LD = dyn_cast<LoadInst>(&I))
          if (LD->isSimple() && LD->getType()->isIntegerTy() && LD->getType()->getIntegerBitWidth() <= 64 && LD->getType()->getIntegerBitWidth() % 8 == 0)
            loads.push_back(LD);
    for (auto *LD : loads) {
      APInt Off(DL.getIndexTypeSizeInBits(LD->getPointerOperandType()), 0);
      Value *B = LD->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
      auto *G = dyn_cast<GlobalVariable>(B);
      if (!G || !Writers.count(G) || Off.getSignificantBits() > 48)
        continue;
      int64_t off = Off.getSExtValue();
      DaoSym Sym{G, off, (unsigned)LD->getType()->getIntegerBitWidth() / 8, 0, 0, 0};
      // (the outermost such loop with one block that enters it from
      // outside: -O3's rotated loops are entered straight from their
      // zero-trip guard, which branches elsewhere too; a load there reads
      // the value the loop sees, and loading a global has no effect on
      // the other path)
      Loop *H = nullptr;
      Loop *L = LIh.getLoopFor(LD->getParent());
      for (Loop *X = L; X && !inLoopWrites(X, G); X = X->getParentLoop())
        if (X->getLoopPredecessor())
          H = X;
      if (!L) {
        if (!reachableWrite(LD, G))
          symOf[LD] = Sym;
        continue;
      }
      BasicBlock *PH = H ? H->getLoopPredecessor() : nullptr;
      if (!PH)
        continue;
      LoadInst *&Hd = Hoisted[std::make_tuple(H, (Value *)G, off, LD->getType())];
      if (!Hd) {
        IRBuilder<> IB(PH->getTerminator());
        Value *P = off ? IB.CreateConstGEP1_64(IB.getInt8Ty(), G, off) : (Value *)G;
        Hd = IB.CreateLoad(LD->getType(), P, "dao.bound");
        symOf[Hd] = Sym;
      }
      LD->replaceAllUsesWith(Hd);
    }
    // a global this function never writes (nor its callees): every load
    // of it reads the same value, also one in a loop without a preheader
    // (merged by a phi with the others at -O3)
    std::map<Value *, bool> anyWrite;
    for (auto *LD : loads) {
      if (symOf.count(LD) || !LD->getParent())
        continue;
      APInt Off(DL.getIndexTypeSizeInBits(LD->getPointerOperandType()), 0);
      Value *B = LD->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
      auto *G = dyn_cast<GlobalVariable>(B);
      if (!G || !Writers.count(G) || Off.getSignificantBits() > 48 || LD->use_empty())
        continue;
      auto It = anyWrite.find(G);
      if (It == anyWrite.end()) {
        bool w = false;
        for (auto &BB : *C)
          for (auto &I : BB)
            w = w || writes(I, G);
        It = anyWrite.emplace(G, w).first;
      }
      if (!It->second)
        symOf[LD] = DaoSym{G, Off.getSExtValue(), (unsigned)LD->getType()->getIntegerBitWidth() / 8, 0, 0, 0};
    }
    // a phi of such loads of the same bytes of a global the function never
    // writes, or of other such phis (a loop's header phi of its own
    // reloads): the same value (-O3 merges a loop nest's reload of
    // `grid_points[0]` with the load before it). An optimistic fixpoint:
    // every integer phi whose incoming values are loads in `symOf` or
    // phis is a candidate; candidates with an incoming value of another
    // kind, or a load of other bytes than the rest of them, drop out,
    // until none does.
    {
      auto sameSym = [](const DaoSym &a, const DaoSym &b) { return a.G == b.G && a.off == b.off && a.bytes == b.bytes; };
      std::map<PHINode *, std::optional<DaoSym>> Cand;
      for (auto &BB : *C)
        for (auto &PN : BB.phis())
          if (PN.getType()->isIntegerTy())
            Cand[&PN] = std::nullopt;
      for (bool changed = true; changed;) {
        changed = false;
        for (auto It = Cand.begin(); It != Cand.end();) {
          PHINode *PN = It->first;
          std::optional<DaoSym> key = It->second;
          bool ok = true;
          for (Value *In : PN->incoming_values()) {
            if (auto J = symOf.find(dyn_cast<LoadInst>(In)); J != symOf.end()) {
              if (key && !sameSym(*key, J->second))
                ok = false;
              key = J->second;
            } else if (auto *Q = dyn_cast<PHINode>(In); Q && Cand.count(Q)) {
              if (auto &K2 = Cand[Q]; K2) {
                if (key && !sameSym(*key, *K2))
                  ok = false;
                key = K2;
              }
            } else {
              ok = false;
            }
          }
          if (!ok) {
            It = Cand.erase(It);
            changed = true;
            continue;
          }
          if (key && !It->second) {
            It->second = key;
            changed = true;
          }
          ++It;
        }
      }
      for (auto &[PN, key] : Cand) {
        if (!key)
          continue;
        auto It = anyWrite.find(key->G);
        if (It == anyWrite.end()) {
          bool w = false;
          for (auto &B2 : *C)
            for (auto &I : B2)
              w = w || writes(I, key->G);
          It = anyWrite.emplace(key->G, w).first;
        }
        if (!It->second)
          symPhi[PN] = *key;
      }
    }
    // each such phi becomes one load at the function's entry (the value
    // is the same there: nothing in the function writes the global), so a
    // loop whose bound it is (a header phi of the loop's own reloads) has a
    // count ScalarEvolution can compute
    if (!symPhi.empty()) {
      IRBuilder<> IB(&*C->getEntryBlock().getFirstInsertionPt());
      for (auto &[PN, Sym] : symPhi) {
        Value *P = Sym.off ? IB.CreateConstGEP1_64(IB.getInt8Ty(), Sym.G, Sym.off) : (Value *)Sym.G;
        LoadInst *LD = IB.CreateLoad(PN->getType(), P, "dao.bound");
        symOf[LD] = Sym;
        PN->replaceAllUsesWith(LD);
        Back.erase(PN);
        PN->eraseFromParent();
      }
      symPhi.clear();
    }
    // the values a writes-only run may pin (the first run) or pins (the
    // second): bound loads, which read the value the loops see
    std::map<std::tuple<GlobalVariable *, int64_t, unsigned>, std::optional<int64_t>> stored;
    std::vector<LoadInst *> pinned;
    for (auto &[LD, Sym] : symOf) {
      auto Key = std::make_tuple(Sym.G, Sym.off, Sym.bytes);
      if (!writesOnly) {
        auto It = stored.find(Key);
        if (It == stored.end())
          It = stored.emplace(Key, storedConstant(Sym.G, Sym.off, Sym.bytes)).first;
        if (It->second && std::none_of(Out->pinCands.begin(), Out->pinCands.end(), [&](const DaoPin &P) { return P.G == Sym.G && P.off == Sym.off && P.bytes == Sym.bytes; }))
          Out->pinCands.push_back({Sym.G, Sym.off, Sym.bytes, *It->second});
        continue;
      }
      for (auto &P : *pins)
        if (P.G == Sym.G && P.off == Sym.off && P.bytes == Sym.bytes) {
          LD->replaceAllUsesWith(ConstantInt::get(LD->getType(), P.value, true));
          pinned.push_back(LD);
        }
    }
    for (LoadInst *LD : pinned)
      symOf.erase(LD);
  }
  lap(2);
  // the writes-only run: a branch to a dead end goes the other way (a
  // loop's writes are what it has written when it completes; on a path to
  // a dead end it never does, and the program ends). The reads of the
  // blocks cut off are not looked at: this run gives writes only.
  if (writesOnly)
    for (auto &BB : *C) {
      // (a switch whose live successors are one block, the others dead
      // ends: -O2's `if (is != 1 && is != -1) exit(1)` is `switch is
      // [1, -1 -> on], default -> the dead end`: a branch to that block)
      if (auto *Sw = dyn_cast<SwitchInst>(BB.getTerminator())) {
        BasicBlock *Live = nullptr;
        bool dead = false, one = true;
        for (unsigned k = 0; k < Sw->getNumSuccessors(); ++k) {
          BasicBlock *S = Sw->getSuccessor(k);
          if (deadEnd(S))
            dead = true;
          else if (!Live)
            Live = S;
          else if (S != Live)
            one = false;
        }
        if (!dead || !Live || !one)
          continue;
        unsigned liveEdges = 0;
        for (unsigned k = 0; k < Sw->getNumSuccessors(); ++k) {
          BasicBlock *S = Sw->getSuccessor(k);
          if (S == Live)
            ++liveEdges;
          else
            S->removePredecessor(&BB);
        }
        for (unsigned k = 1; k < liveEdges; ++k)
          Live->removePredecessor(&BB, true);
        BranchInst::Create(Live, Sw);
        Back.erase(Sw);
        Sw->eraseFromParent();
        continue;
      }
      auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
      if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
        continue;
      bool d0 = deadEnd(Br->getSuccessor(0)), d1 = deadEnd(Br->getSuccessor(1));
      if (d0 == d1)
        continue;
      BasicBlock *Dead = Br->getSuccessor(d0 ? 0 : 1), *Live = Br->getSuccessor(d0 ? 1 : 0);
      Dead->removePredecessor(&BB);
      BranchInst::Create(Live, Br);
      Back.erase(Br);
      Br->eraseFromParent();
    }
  // fold what -O0 leaves for ScalarEvolution to trip over (`sdiv %x, 1`,
  // `sub %x, 0` in the bounds clang computes for a worksharing loop)
  // and what the team view leaves: the worksharing bound `umin(ub, n)`
  // after the deleted init is `umin(n, n)`, and its reloads from the
  // promoted `.omp.ub` slot (after a call that may write memory, NPB SP's
  // `sqrt`) are a cycle of phis of that one value
  if (nElig) {
    const DataLayout &DL = C->getParent()->getDataLayout();
    for (auto &BB : *C)
      for (auto &I : BB)
        if (isa<BinaryOperator>(&I) || isa<MinMaxIntrinsic>(&I))
          if (Value *V = simplifyInstruction(&I, SimplifyQuery(DL)))
            I.replaceAllUsesWith(V);
    foldSameValuePhis(*C, [&](Value *V) { Back.erase(V); });
    assumeLoopGuards(*C);
    unsignedBoundMinusOne(*C, [&](Value *V) { Back.erase(V); });
  }
  undoThreadedCopies(*C);
  if (const char *D = getenv("DAO_DEBUG_CLONE"); D && F->getName() == D)
    errs() << *C;
  lap(3);
  // the analyses live in this scope: they hold handles into the clone, which
  // is erased after they are gone
  {
  const DataLayout &DL = C->getParent()->getDataLayout();
  TargetLibraryInfoImpl TLII(Triple(C->getParent()->getTargetTriple()));
  TargetLibraryInfo TLI(TLII);
  AssumptionCache AC(*C);
  DominatorTree DT(*C);
  LoopInfo LI(DT);
  ScalarEvolution SE(*C, TLI, AC, DT, LI);
  // A loop's backedge-taken count; when ScalarEvolution gives it only under
  // predicates, that count, provided each predicate is "no signed wrap" of
  // an add recurrence of the loop computed by an `add nsw` in its latch
  // whose result the latch's exit test compares. Every completed iteration
  // runs the latch, a signed wrap there makes the add poison and the exit
  // branch on it undefined behaviour, so in a valid run the predicate holds.
  // (-O2's NPB FT `cffts1`: the block loop `jj += fftblock` calls `cfftz`,
  // which may not return, so ScalarEvolution does not trust the add's
  // `nsw` for the iterations before that call.)
  std::map<Loop *, const SCEV *> btcMemo;
  auto btcOf = [&](Loop *L) -> const SCEV * {
    if (auto It = btcMemo.find(L); It != btcMemo.end())
      return It->second;
    const SCEV *B = SE.getBackedgeTakenCount(L);
    auto done = [&](const SCEV *X) { return btcMemo[L] = X; };
    if (!isa<SCEVCouldNotCompute>(B))
      return done(B);
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch)
      return done(B);
    auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    if (!Cmp)
      return done(B);
    SmallVector<const SCEVPredicate *, 4> Preds;
    const SCEV *P = SE.getPredicatedBackedgeTakenCount(L, Preds);
    if (isa<SCEVCouldNotCompute>(P) || Preds.empty())
      return done(B);
    if (debugLoops())
      for (const SCEVPredicate *Pr : Preds) {
        errs() << "dao-debug: loop " << L->getHeader()->getName() << ": predicate ";
        Pr->print(errs());
      }
    for (const SCEVPredicate *Pr : Preds) {
      auto *W = dyn_cast<SCEVWrapPredicate>(Pr);
      if (!W || W->getFlags() != SCEVWrapPredicate::IncrementNSSW || W->getExpr()->getLoop() != L)
        return done(B);
      bool ok = false;
      for (Value *Op : Cmp->operands())
        if (auto *I = dyn_cast<BinaryOperator>(Op); I && I->getParent() == Latch && I->getOpcode() == Instruction::Add && I->hasNoSignedWrap() && SE.getSCEV(I) == W->getExpr())
          ok = true;
      if (!ok)
        return done(B);
    }
    if (debugLoops())
      errs() << "dao-debug: loop " << L->getHeader()->getName() << ": backedge-taken count under its latch's nsw: " << *P << "\n";
    return done(P);
  };

  std::map<Loop *, unsigned> LoopIx;
  for (Loop *L : LI.getLoopsInPreorder()) {
    // the one block outside the loop that enters it (a preheader, or the
    // exit block of the loop nest before it at -O2, which branches
    // elsewhere too: the front then splits the edge in its body)
    BasicBlock *PH = L->getLoopPredecessor();
    DaoLoopRec R;
    R.preheader = PH ? cast<BasicBlock>(Back[PH]) : nullptr;
    R.header = cast<BasicBlock>(Back[L->getHeader()]);
    for (BasicBlock *B : L->blocks())
      R.blocks.push_back(cast<BasicBlock>(Back[B]));
    // the nearest dominating block with a static init, at this loop's depth
    if (!initBlock.empty())
      for (auto *N = DT.getNode(L->getHeader())->getIDom(); N; N = N->getIDom()) {
        auto It = initBlock.find(N->getBlock());
        if (It != initBlock.end()) {
          if (LI.getLoopFor(N->getBlock()) == L->getParentLoop())
            R.init = It->second;
          break;
        }
      }
    LoopIx[L] = Out->loops.size();
    Out->loops.push_back(R);
  }
  lap(4);
  // An offset as {start, +, step} over L with constant start and step (step
  // 0 when invariant in L), or nothing.
  // relStart with a start that need not be a constant: invariant in L (the
  // loops around L's), as a SCEV
  auto relStartS = [&](const SCEV *O, Loop *L) -> std::optional<std::pair<const SCEV *, int64_t>> {
    int64_t step = 0;
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(O); AR && AR->getLoop() == L) {
      auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!AR->isAffine() || !St || St->getAPInt().getSignificantBits() > 48)
        return std::nullopt;
      step = St->getAPInt().getSExtValue();
      O = AR->getStart();
    }
    if (!SE.isLoopInvariant(O, L))
      return std::nullopt;
    return std::make_pair(O, step);
  };
  // How often, at most, block X of loop L (X: a block of L, or the header
  // of a loop inside L) runs per entry of L when L takes at most `max`
  // backedges: max + 1, or max when L's only exiting block strictly
  // dominates X (the last iteration leaves before reaching X; -O0's
  // top-tested loops).
  auto mayCount = [&](Loop *L, BasicBlock *X, uint64_t max) -> uint64_t {
    BasicBlock *E = L->getExitingBlock();
    return E && E != X && DT.dominates(E, X) ? max : max + 1;
  };
  // The object an address points into and its byte offset from the
  // object's start as a SCEV: a global, or an alloca (with `argOrCall`, also
  // an argument or a call's result) of the original function, mapped back
  // through the clone's value map; nothing when ScalarEvolution cannot say.
  // (memoised: the write, read and unrolled-cover analyses ask for the same
  // addresses; the clone no longer changes from here on)
  DenseMap<Value *, std::optional<std::pair<Value *, const SCEV *>>> OffsetMemo[2];
  auto objectOffsetRaw = [&](Value *Ptr, bool argOrCall) -> std::optional<std::pair<Value *, const SCEV *>> {
    if (!SE.isSCEVable(Ptr->getType()))
      return std::nullopt;
    const SCEV *P = SE.getSCEV(Ptr);
    auto *BaseU = dyn_cast<SCEVUnknown>(SE.getPointerBase(P));
    if (!BaseU)
      return std::nullopt;
    Value *Base = BaseU->getValue();
    if (!isa<GlobalVariable>(Base) && !isa<AllocaInst>(Base) && !(argOrCall && (isa<Argument>(Base) || isa<CallInst>(Base))))
      return std::nullopt;
    auto BI = Back.find(Base);
    Value *OrigBase = isa<GlobalVariable>(Base) ? Base : (BI == Back.end() ? nullptr : BI->second);
    if (!OrigBase || OrigBase->getValueID() != Base->getValueID())
      return std::nullopt;
    const SCEV *Off = SE.getMinusSCEV(P, BaseU);
    if (isa<SCEVCouldNotCompute>(Off))
      return std::nullopt;
    return std::make_pair(OrigBase, DaoExtDistributor(SE).visit(Off));
  };
  auto objectOffset = [&](Value *Ptr, bool argOrCall) -> std::optional<std::pair<Value *, const SCEV *>> {
    auto &Memo = OffsetMemo[argOrCall];
    if (auto It = Memo.find(Ptr); It != Memo.end())
      return It->second;
    auto R = objectOffsetRaw(Ptr, argOrCall);
    Memo[Ptr] = R;
    return R;
  };
  // A read: a load's address and size, or a memory transfer's source and
  // length (UINT64_MAX when not constant).
  auto readAccess = [&](Instruction &I) -> std::optional<std::pair<Value *, uint64_t>> {
    if (auto *LI2 = dyn_cast<LoadInst>(&I))
      return std::make_pair(LI2->getPointerOperand(), (uint64_t)DL.getTypeStoreSize(LI2->getType()).getFixedValue());
    if (auto *MT = dyn_cast<MemTransferInst>(&I)) {
      auto *Len = dyn_cast<ConstantInt>(MT->getLength());
      return std::make_pair(MT->getSource(), Len ? Len->getZExtValue() : UINT64_MAX);
    }
    return std::nullopt;
  };
  // Peel loop L off a read's offset O (block X of L, or the header of the
  // loop inside L that holds the read), adding L's dimension with its
  // may-count to box R when O is an affine recurrence of L; false when O
  // varies with L in any other way, or the box is full.
  auto peelMay = [&](const SCEV *&O, Loop *L, BasicBlock *X, auto &R) -> bool {
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(O); AR && AR->getLoop() == L) {
      auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      auto *Max = dyn_cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L));
      if (!AR->isAffine() || !St || !Max || St->getAPInt().getSignificantBits() > 48 || Max->getAPInt().getActiveBits() > 40 || R.ndims == 8)
        return false;
      R.stride[R.ndims] = St->getAPInt().getSExtValue();
      R.count[R.ndims] = mayCount(L, X, Max->getAPInt().getZExtValue());
      R.ndims++;
      O = AR->getStart();
      return true;
    }
    return SE.isLoopInvariant(O, L);
  };
  // `A - smin(K, A)` as `smax(K, A) - K` (and `A - umin(K, A)` as
  // `umax(K, A) - K`), K a constant: the same value, in the shape the
  // peeling below reads. flang's counted loops `do i = 0, n - 1` at -O3
  // give this backedge-taken count: `1 + sext(-1 + U) - smin(1, 1 +
  // sext(-1 + U))` (NPB 3.3 BT's compute_rhs, issue #33).
  auto minusMin = [&](const SCEV *B) -> const SCEV * {
    auto *A = dyn_cast<SCEVAddExpr>(B);
    if (!A)
      return B;
    for (unsigned i = 0; i < A->getNumOperands(); ++i) {
      auto *M = dyn_cast<SCEVMulExpr>(A->getOperand(i));
      if (!M || M->getNumOperands() != 2 || !M->getOperand(0)->isAllOnesValue())
        continue;
      auto *Mn = dyn_cast<SCEVMinMaxExpr>(M->getOperand(1));
      if (!Mn || Mn->getNumOperands() != 2 || !(isa<SCEVSMinExpr>(Mn) || isa<SCEVUMinExpr>(Mn)))
        continue;
      auto *K = dyn_cast<SCEVConstant>(Mn->getOperand(0));
      if (!K || K->getAPInt().getSignificantBits() > 20)
        continue;
      SmallVector<const SCEV *, 4> Rest;
      for (unsigned j = 0; j < A->getNumOperands(); ++j)
        if (j != i)
          Rest.push_back(A->getOperand(j));
      const SCEV *X = Rest.size() == 1 ? Rest[0] : SE.getAddExpr(Rest);
      if (X != Mn->getOperand(1))
        continue;
      const SCEV *Mx = isa<SCEVSMinExpr>(Mn) ? SE.getSMaxExpr(K, X) : SE.getUMaxExpr(K, X);
      return SE.getAddExpr(SE.getNegativeSCEV(K), Mx);
    }
    return B;
  };
  auto constBTC = [&](Loop *L, uint64_t &n) -> bool {
    if (!L->getLoopPredecessor() || !L->getLoopLatch() || !L->getExitingBlock())
      return false;
    const SCEV *B = btcOf(L);
    auto *K = dyn_cast<SCEVConstant>(B);
    if (!K || K->getAPInt().getActiveBits() > 40)
      return false;
    n = K->getAPInt().getZExtValue();
    return true;
  };
  // `U`, `zext U` or `sext U` for a bound load U: its record, signed for
  // sext (a use's reading of the value), or nothing.
  auto boundLoad = [&](const SCEV *S) -> std::optional<DaoSym> {
    int sgn = 0;
    if (auto *Z = dyn_cast<SCEVZeroExtendExpr>(S))
      S = Z->getOperand();
    else if (auto *X = dyn_cast<SCEVSignExtendExpr>(S)) {
      S = X->getOperand();
      sgn = 1;
    }
    auto *U = dyn_cast<SCEVUnknown>(S);
    auto It = U ? symOf.find(dyn_cast<LoadInst>(U->getValue())) : symOf.end();
    auto Ph = U && It == symOf.end() ? symPhi.find(dyn_cast<PHINode>(U->getValue())) : symPhi.end();
    if (It == symOf.end() && Ph == symPhi.end())
      return std::nullopt;
    DaoSym o = It != symOf.end() ? It->second : Ph->second;
    o.sgn = sgn;
    return o;
  };
  // A backedge-taken count that is at least `add + ext U` for one of the
  // bound loads U above: peeled from the outside in, `c + X` (c a small
  // constant: add += c), `max(k, X)` (smax or umax: at least X; for umax
  // only while X is not negative, so U >= `low` then), `zext U`, `sext U`,
  // `U`. All a must-write needs is such a lower bound.
  // A loop's backedge-taken count peeled from the outside in: constants
  // added (`add`), `smax(k, X)` / `umax(k, X)` (the largest `add + k` in
  // `floor`, INT64_MIN when none; the add outside each umax in `umaxAt`;
  // INT64_MAX when a k is wider than
  // 20 bits: no usable upper bound), down to what is left in B.
  // (`given`: a backedge-taken count to use instead of L's: a runtime-
  // unrolled loop's, below)
  auto peelBTC = [&](Loop *L, const SCEV *&B, unsigned &width, int64_t &add, int64_t &floor, std::vector<int64_t> &umaxAt, const SCEV *given = nullptr) -> bool {
    if (symOf.empty() || !L->getLoopPredecessor() || !L->getLoopLatch() || !L->getExitingBlock())
      return false;
    B = given ? given : btcOf(L);
    if (isa<SCEVCouldNotCompute>(B))
      return false;
    B = minusMin(B);
    width = B->getType()->getIntegerBitWidth();
    add = 0;
    floor = INT64_MIN;
    bool wideK = false;
    for (int depth = 0; depth < 8; ++depth) {
      if (auto *A = dyn_cast<SCEVAddExpr>(B)) {
        auto *K = dyn_cast<SCEVConstant>(A->getOperand(0));
        if (A->getNumOperands() != 2 || !K || K->getAPInt().getSignificantBits() > 20)
          return false;
        add += K->getAPInt().getSExtValue();
        B = A->getOperand(1);
        continue;
      }
      if (isa<SCEVSMaxExpr>(B) || isa<SCEVUMaxExpr>(B)) {
        auto *M = cast<SCEVNAryExpr>(B);
        auto *K = M->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(M->getOperand(0)) : nullptr;
        if (!K)
          return false;
        if (K->getAPInt().getSignificantBits() > 20)
          wideK = true;
        else
          floor = std::max(floor, add + K->getAPInt().getSExtValue());
        if (isa<SCEVUMaxExpr>(B))
          umaxAt.push_back(add);
        B = M->getOperand(1);
        continue;
      }
      break;
    }
    if (wideK)
      floor = INT64_MAX;
    return true;
  };
  auto symBTC = [&](Loop *L, DaoSym &o, const SCEV *given = nullptr) -> bool {
    const SCEV *B;
    unsigned width;
    int64_t add, floor;
    std::vector<int64_t> umaxAt; // `add` outside each umax
    if (!peelBTC(L, B, width, add, floor, umaxAt, given))
      return false;
    // `ext (c + U) /u D` or `ext U /u D` (D > 1 a constant): a loop
    // stepping by D up to a bound, `for (jj = 0; jj <= n - 16; jj += 16)`
    // (ScalarEvolution: `zext (-16 + n) /u 16`): floor((U + c) / D) while
    // U >= -c, where the 32-bit add does not wrap (U at most 2^(8*bytes-2),
    // the Rust side's condition) and the extension keeps the value
    if (auto *UD = dyn_cast<SCEVUDivExpr>(B); UD && umaxAt.empty()) {
      // (also `ext (a + smax(k, b + U)) /u D`, the form of a rotated
      // loop's count, `(-1 + (16 smax (-15 + n))) /u 16`: a + b + U while
      // U >= k - b)
      auto *D = dyn_cast<SCEVConstant>(UD->getRHS());
      const SCEV *X = UD->getLHS();
      int64_t c = 0, low = 0;
      if (isa<SCEVZeroExtendExpr>(X) || isa<SCEVSignExtendExpr>(X))
        X = cast<SCEVCastExpr>(X)->getOperand();
      auto peelAdd = [&](const SCEV *&Y) -> bool {
        if (auto *A = dyn_cast<SCEVAddExpr>(Y); A && A->getNumOperands() == 2 && isa<SCEVConstant>(A->getOperand(0))) {
          auto *K = cast<SCEVConstant>(A->getOperand(0));
          if (K->getAPInt().getSignificantBits() > 20)
            return false;
          c += K->getAPInt().getSExtValue();
          Y = A->getOperand(1);
        }
        return true;
      };
      if (!peelAdd(X))
        return false;
      // (`(c + ext U) /u D`: the extension inside the add, -O2's form of
      // a block loop whose index is widened, `(-16 + sext n) /u 16`; the add
      // is in the count's width, U's value kept by the extension, a zero
      // extension's while U >= 0, which `low` requires anyway)
      bool innerExt = false;
      if (!isa<SCEVCastExpr>(UD->getLHS()) && (isa<SCEVSignExtendExpr>(X) || isa<SCEVZeroExtendExpr>(X)) && !isa<SCEVAddExpr>(cast<SCEVCastExpr>(X)->getOperand())) {
        X = cast<SCEVCastExpr>(X)->getOperand();
        innerExt = true;
      }
      std::optional<int64_t> atLeast;
      if (auto *M = dyn_cast<SCEVSMaxExpr>(X); !innerExt && M && M->getNumOperands() == 2 && isa<SCEVConstant>(M->getOperand(0))) {
        auto *K = cast<SCEVConstant>(M->getOperand(0));
        if (K->getAPInt().getSignificantBits() > 20)
          return false;
        atLeast = K->getAPInt().getSExtValue();
        X = M->getOperand(1);
        int64_t before = c;
        if (!peelAdd(X))
          return false;
        // (`sext (d + U)` or `zext (d + U)` there, -O2's form
        // `(-1 + (16 smax (1 + sext (-16 + n)))) /u 16`: d + U, which the
        // extension keeps in U's width while U is at most 2^(8*bytes-2) (the
        // Rust side's condition) and, for zext, d + U is not negative)
        if (isa<SCEVSignExtendExpr>(X) || isa<SCEVZeroExtendExpr>(X))
          if (auto *A = dyn_cast<SCEVAddExpr>(cast<SCEVCastExpr>(X)->getOperand()); A && A->getNumOperands() == 2 && isa<SCEVConstant>(A->getOperand(0))) {
            bool zext = isa<SCEVZeroExtendExpr>(X);
            int64_t c0 = c;
            const SCEV *Y = A;
            if (!peelAdd(Y))
              return false;
            if (zext)
              low = std::max(low, -(c - c0));
            X = Y;
          }
        // smax(k, b + U) is b + U while U >= k - b
        low = std::max(low, *atLeast - (c - before));
      }
      auto Bd = boundLoad(X);
      if (!D || D->getAPInt().getActiveBits() > 20 || D->getAPInt().ule(1) || !Bd || width < 8 * Bd->bytes || 8 * Bd->bytes != X->getType()->getIntegerBitWidth() ||
          add < -(1 << 20) || add > (1 << 20))
        return false;
      o = *Bd;
      o.add = add;
      o.div = D->getAPInt().getSExtValue();
      o.pre = c;
      // (U + c >= 0: the division's operand is the value, not a wrapped one)
      o.low = std::max<int64_t>({0, -c, low});
      return true;
    }
    // the least value of U the count needs (`low`: a condition of the
    // kills that use it; below)
    int64_t innerLow = 0;
    // `zext (smax(k, U))`, k >= 0: at least U whatever its sign (U < 0:
    // k >= 0 > U), so U
    // (also `zext (smax(k, c + U))`: at least c + U, U's own width)
    if (auto *Ext = dyn_cast<SCEVZeroExtendExpr>(B))
      if (auto *M = dyn_cast<SCEVSMaxExpr>(Ext->getOperand()); M && M->getNumOperands() == 2)
        if (auto *K = dyn_cast<SCEVConstant>(M->getOperand(0)); K && !K->getAPInt().isNegative()) {
          const SCEV *X = M->getOperand(1);
          if (boundLoad(X)) {
            B = X;
          } else if (auto *A = dyn_cast<SCEVAddExpr>(X); A && A->getNumOperands() == 2) {
            auto *C2 = dyn_cast<SCEVConstant>(A->getOperand(0));
            // (c <= 0: a wrap only makes the value larger)
            if (C2 && C2->getAPInt().getSignificantBits() <= 20 && boundLoad(A->getOperand(1)) && (A->hasNoSignedWrap() || !C2->getAPInt().isStrictlyPositive())) {
              add += C2->getAPInt().getSExtValue();
              B = A->getOperand(1);
            }
          }
        }
    // `zext (c + U)` (the bound minus one, extended: NPB BT's `k <
    // grid_points[2]-1` at -O3), or `sext (c + U)` (after a peeled
    // `smax(k, .)`: `-2 + smax(2, sext(-1 + U))`): c + U while U >= -c
    // (`low`), where neither the add nor the extension wraps (U is at most
    // 2^(8*bytes-2): the Rust side's condition)
    if (isa<SCEVZeroExtendExpr>(B) || isa<SCEVSignExtendExpr>(B)) {
      auto *Ext = cast<SCEVCastExpr>(B);
      if (auto *A = dyn_cast<SCEVAddExpr>(Ext->getOperand()); A && A->getNumOperands() == 2) {
        auto *K = dyn_cast<SCEVConstant>(A->getOperand(0));
        auto Bd = boundLoad(A->getOperand(1));
        if (K && K->getAPInt().getSignificantBits() <= 20 && Bd && 8 * Bd->bytes == A->getType()->getIntegerBitWidth()) {
          int64_t c = K->getAPInt().getSExtValue();
          add += c;
          innerLow = std::max<int64_t>(innerLow, -c);
          B = SE.getZeroExtendExpr(A->getOperand(1), Ext->getType());
        }
      }
    }
    if (add < -(1 << 20) || add > (1 << 20))
      return false;
    auto Bd = boundLoad(B);
    // the value must not wrap the count's width: the Rust side bounds it
    // by 2^(8*bytes-2), and the count's width is at least the load's
    if (!Bd || width < 8 * Bd->bytes)
      return false;
    o = *Bd;
    o.add = add;
    o.low = innerLow;
    for (int64_t outer : umaxAt)
      o.low = std::max(o.low, -(add - outer));
    return true;
  };
  // An upper bound of a loop's backedge-taken count for a may-box (reads,
  // issue #33): `add + ext U` for a bound load U, through constants added
  // and `smax(k, X)` / `umax(k, X)` (at most max(add + k, add + X); for
  // umax only while X is not negative, so U >= `low` then). `floor`: the
  // largest `add + k` (INT64_MIN when none).
  auto symMayBTC = [&](Loop *L, DaoSym &o, int64_t &floor, const SCEV *given = nullptr) -> bool {
    const SCEV *B;
    unsigned width;
    int64_t add;
    std::vector<int64_t> umaxAt;
    if (!peelBTC(L, B, width, add, floor, umaxAt, given) || floor == INT64_MAX)
      return false;
    // `zext (c + U)` / `sext (c + U)` (the bound minus one, extended):
    // c + U itself while it does not wrap, for zext while U >= -c
    int64_t inner = 0, innerLow = 0;
    if (isa<SCEVZeroExtendExpr>(B) || isa<SCEVSignExtendExpr>(B)) {
      auto *Ext = cast<SCEVCastExpr>(B);
      if (auto *A = dyn_cast<SCEVAddExpr>(Ext->getOperand()); A && A->getNumOperands() == 2) {
        auto *K = dyn_cast<SCEVConstant>(A->getOperand(0));
        auto *U = dyn_cast<SCEVUnknown>(A->getOperand(1));
        auto It = U ? symOf.find(dyn_cast<LoadInst>(U->getValue())) : symOf.end();
        if (!K || K->getAPInt().getSignificantBits() > 20 || It == symOf.end() || 8 * It->second.bytes != A->getType()->getIntegerBitWidth())
          return false;
        inner = K->getAPInt().getSExtValue();
        if (isa<SCEVZeroExtendExpr>(B))
          innerLow = std::max<int64_t>(0, -inner);
        B = isa<SCEVZeroExtendExpr>(B) ? SE.getZeroExtendExpr(U, Ext->getType()) : SE.getSignExtendExpr(U, Ext->getType());
      }
    }
    add += inner;
    if (add < -(1 << 20) || add > (1 << 20))
      return false;
    auto Bd = boundLoad(B);
    if (!Bd || width < 8 * Bd->bytes)
      return false;
    o = *Bd;
    o.add = add;
    o.low = innerLow;
    for (int64_t outer : umaxAt)
      o.low = std::max(o.low, -(add - outer));
    return true;
  };
  // An upper bound `c + coef * U` of S for one bound load U (coef >= 0; 0:
  // a constant), valid while U >= low: constants, sums, products with a
  // constant, `k * (Z /u m)` (at most (k/m) * Z while Z >= 0, m dividing
  // k: a vectorised loop's count), `smax(k, Z)` / `umax(k, Z)` (k folded
  // into `floor`, at most max(floor, c + coef * U)), `zext Z` (while Z >= 0)
  // and `sext Z`. For the vectorised loops and their remainders at -O2
  // and -O3 (issue #33).
  struct DaoUB {
    int64_t c = 0, coef = 0;
    DaoSym u;
    bool hasU = false;
    int64_t low = 0;                 // U >= low
    int64_t floor = INT64_MIN;       // S <= max(floor, c + coef*U)
  };
  std::function<bool(const SCEV *, DaoUB &, int)> upper = [&](const SCEV *S, DaoUB &o, int depth) -> bool {
    if (depth > 12)
      return false;
    auto small = [](int64_t v) { return v > -(int64_t(1) << 40) && v < (int64_t(1) << 40); };
    // U >= low such that c + coef*U >= 0
    auto nonneg = [&](DaoUB &x) -> bool {
      if (x.floor != INT64_MIN && x.floor >= 0)
        return true; // max(floor, ...) >= floor
      if (!x.hasU || x.coef == 0)
        return x.c >= 0 && x.floor == INT64_MIN;
      x.low = std::max(x.low, (-x.c + x.coef - 1) / x.coef);
      return true;
    };
    auto join = [&](DaoUB &acc, const DaoUB &x) -> bool {
      // max(f, e) + c = max(f + c, e + c): a floor moves with constants
      bool xc = !x.hasU && x.floor == INT64_MIN, ac = !acc.hasU && acc.floor == INT64_MIN;
      if (x.floor != INT64_MIN && acc.floor != INT64_MIN)
        return false;
      if (x.floor != INT64_MIN) {
        if (!ac)
          return false;
        acc.floor = x.floor + acc.c;
      } else if (acc.floor != INT64_MIN) {
        if (!xc)
          return false;
        acc.floor += x.c;
      }
      if (x.hasU) {
        if (acc.hasU && (acc.u.G != x.u.G || acc.u.off != x.u.off || acc.u.bytes != x.u.bytes || acc.u.sgn != x.u.sgn))
          return false;
        acc.u = x.u;
        acc.hasU = true;
      }
      acc.c += x.c;
      acc.coef += x.coef;
      acc.low = std::max(acc.low, x.low);
      return small(acc.c) && small(acc.coef);
    };
    if (auto *K = dyn_cast<SCEVConstant>(S)) {
      if (K->getAPInt().getSignificantBits() > 40)
        return false;
      o.c = K->getAPInt().getSExtValue();
      return true;
    }
    if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
      for (const SCEV *Op : A->operands()) {
        DaoUB x;
        if (!upper(Op, x, depth + 1) || !join(o, x))
          return false;
      }
      return true;
    }
    if (auto *M = dyn_cast<SCEVMulExpr>(S)) {
      auto *K = M->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(M->getOperand(0)) : nullptr;
      if (!K || K->getAPInt().isNegative() || K->getAPInt().getActiveBits() > 20)
        return false;
      int64_t k = K->getAPInt().getSExtValue();
      const SCEV *Z = M->getOperand(1);
      // `zext (trunc (Z /u m))`: neither makes the (unsigned) quotient larger
      const SCEV *Q = Z;
      while (isa<SCEVZeroExtendExpr>(Q) || isa<SCEVTruncateExpr>(Q))
        Q = cast<SCEVCastExpr>(Q)->getOperand();
      if (isa<SCEVUDivExpr>(Q))
        Z = Q;
      if (auto *D = dyn_cast<SCEVUDivExpr>(Z)) {
        auto *Mk = dyn_cast<SCEVConstant>(D->getRHS());
        if (!Mk || Mk->getAPInt().getActiveBits() > 20 || Mk->getAPInt().isZero() || k % Mk->getAPInt().getSExtValue() != 0)
          return false;
        k /= Mk->getAPInt().getSExtValue();
        Z = D->getLHS();
        DaoUB x;
        if (!upper(Z, x, depth + 1) || !nonneg(x))
          return false;
        o = x;
      } else {
        DaoUB x;
        if (!upper(Z, x, depth + 1))
          return false;
        o = x;
      }
      o.c *= k;
      o.coef *= k;
      if (o.floor != INT64_MIN)
        o.floor *= k;
      return small(o.c) && small(o.coef) && (o.floor == INT64_MIN || small(o.floor));
    }
    if (isa<SCEVSMaxExpr>(S) || isa<SCEVUMaxExpr>(S)) {
      auto *M = cast<SCEVNAryExpr>(S);
      auto *K = M->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(M->getOperand(0)) : nullptr;
      if (!K || K->getAPInt().getSignificantBits() > 20)
        return false;
      DaoUB x;
      if (!upper(M->getOperand(1), x, depth + 1) || x.floor != INT64_MIN)
        return false;
      if (isa<SCEVUMaxExpr>(S) && !nonneg(x))
        return false;
      o = x;
      o.floor = K->getAPInt().getSExtValue();
      return true;
    }
    if (auto *Z = dyn_cast<SCEVZeroExtendExpr>(S)) {
      DaoUB x;
      if (!upper(Z->getOperand(), x, depth + 1) || !nonneg(x))
        return false;
      o = x;
      return true;
    }
    if (auto *X = dyn_cast<SCEVSignExtendExpr>(S)) {
      DaoUB x;
      if (!upper(X->getOperand(), x, depth + 1))
        return false;
      o = x;
      return true;
    }
    if (auto *U = dyn_cast<SCEVUnknown>(S)) {
      auto It = symOf.find(dyn_cast<LoadInst>(U->getValue()));
      // a phi of loads of the same bound (the same value)
      if (auto *P = dyn_cast<PHINode>(U->getValue()); It == symOf.end() && P && P->getNumIncomingValues() <= 4) {
        std::optional<DaoSym> same;
        for (Value *In : P->incoming_values()) {
          auto J = symOf.find(dyn_cast<LoadInst>(In));
          if (J == symOf.end() || (same && (same->G != J->second.G || same->off != J->second.off || same->bytes != J->second.bytes))) {
            same.reset();
            break;
          }
          same = J->second;
        }
        if (same) {
          o.u = *same;
          o.hasU = true;
          o.coef = 1;
          return true;
        }
      }
      if (It == symOf.end()) {
        if (debugLoops())
          errs() << "dao-debug: not a bound load: " << *U->getValue() << " in " << C->getName() << "\n";
        return false;
      }
      o.u = It->second;
      o.hasU = true;
      o.coef = 1;
      return true;
    }
    return false;
  };
  // peelMay through the first and last offsets of L's iterations: the
  // offsets from the start (its parts that are not the outer loops'
  // recurrences or constants dropped when not negative: a remainder loop
  // starting where the vector loop stopped) to the offset at the
  // backedge-taken count, as a dimension of stride e with a count bounded
  // by a bound load or a constant (a read's box only; the innermost
  // dimension may turn a vector access of `Size` bytes into e-byte cells).
  // The offset O of a read as `Start + s * i` over L's iterations i =
  // 0..BTC: an affine recurrence of L, or (-O0's worksharing loops, an
  // i32 index extended) `rest + k * ext({a,+,b}<L>)` with the recurrence
  // not wrapping (nsw or nuw: an index past 2^31 would lie far outside
  // any object the boxes describe). Returns Start, s and s * BTC.
  auto spanOf = [&](const SCEV *O, Loop *L, const SCEV *BTC, const SCEV *&Start, int64_t &s, const SCEV *&D) -> bool {
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(O); AR && AR->getLoop() == L) {
      auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!AR->isAffine() || !St || St->getAPInt().isNegative() || St->getAPInt().isZero() || St->getAPInt().getActiveBits() > 40)
        return false;
      s = St->getAPInt().getSExtValue();
      Start = AR->getStart();
      D = SE.getMinusSCEV(AR->evaluateAtIteration(BTC, SE), Start);
      return true;
    }
    auto *A = dyn_cast<SCEVAddExpr>(O);
    if (!A)
      return false;
    SmallVector<const SCEV *, 4> rest;
    const SCEV *T = nullptr;
    for (const SCEV *Op : A->operands()) {
      if (SE.isLoopInvariant(Op, L))
        rest.push_back(Op);
      else if (T)
        return false;
      else
        T = Op;
    }
    if (!T)
      return false;
    int64_t k = 1;
    if (auto *M = dyn_cast<SCEVMulExpr>(T); M && M->getNumOperands() == 2) {
      auto *K = dyn_cast<SCEVConstant>(M->getOperand(0));
      if (!K || K->getAPInt().isNegative() || K->getAPInt().getActiveBits() > 30)
        return false;
      k = K->getAPInt().getSExtValue();
      T = M->getOperand(1);
    }
    auto *X = dyn_cast<SCEVCastExpr>(T);
    if (!X || !(isa<SCEVSignExtendExpr>(X) || isa<SCEVZeroExtendExpr>(X)))
      return false;
    auto *AR = dyn_cast<SCEVAddRecExpr>(X->getOperand());
    if (!AR || AR->getLoop() != L || !AR->isAffine() || !(AR->hasNoSignedWrap() || AR->hasNoUnsignedWrap()))
      return false;
    auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!St || St->getAPInt().isNegative() || St->getAPInt().isZero() || St->getAPInt().getActiveBits() > 20)
      return false;
    s = k * St->getAPInt().getSExtValue();
    Type *Ty = O->getType();
    const SCEV *S0 = isa<SCEVSignExtendExpr>(X) ? SE.getSignExtendExpr(AR->getStart(), Ty) : SE.getZeroExtendExpr(AR->getStart(), Ty);
    rest.push_back(SE.getMulExpr(SE.getConstant(Ty, k), S0));
    Start = SE.getAddExpr(rest);
    if (BTC->getType()->getIntegerBitWidth() > Ty->getIntegerBitWidth())
      return false;
    D = SE.getMulExpr(SE.getConstant(Ty, s), SE.getZeroExtendExpr(BTC, Ty));
    return true;
  };
  auto peelSpan = [&](const SCEV *&O, Loop *L, BasicBlock *X, auto &R) -> bool {
    if (R.ndims == 8 || !L->getExitingBlock()) {
      if (debugLoops())
        errs() << "dao-debug: no single exit or too deep: " << L->getHeader()->getName() << " " << R.ndims << "\n";
      return false;
    }
    const SCEV *BTC = btcOf(L);
    if (isa<SCEVCouldNotCompute>(BTC)) {
      if (debugLoops())
        errs() << "dao-debug: no BTC for " << L->getHeader()->getName() << "\n";
      return false;
    }
    const SCEV *Start = nullptr, *D0 = nullptr;
    int64_t s = 0;
    if (!spanOf(O, L, BTC, Start, s, D0)) {
      if (debugLoops())
        errs() << "dao-debug: no span: " << *O << " BTC " << *BTC << "\n";
      return false;
    }
    const SCEV *StartLo = Start;
    // a term not negative: known so, or `k * V` (k >= 0) for a phi whose
    // incoming values are (the vector loop's resume index: 0 or n.vec)
    std::function<bool(Value *, int)> nonNegV = [&](Value *V, int d) -> bool {
      if (auto *P = dyn_cast<PHINode>(V); P && d < 3) {
        // each incoming value where it comes from (under the conditions
        // that guard that edge: the vector loop ran, so its end index is
        // at least its width)
        for (unsigned k = 0; k < P->getNumIncomingValues(); ++k) {
          Value *In = P->getIncomingValue(k);
          if (In == P)
            continue;
          Instruction *Ctx = P->getIncomingBlock(k)->getTerminator();
          auto nonNegAt = [&](Value *X) {
            if (!SE.isSCEVable(X->getType()))
              return false;
            const SCEV *S = SE.getSCEV(X);
            if (SE.isKnownPredicateAt(ICmpInst::ICMP_SGE, S, SE.getZero(S->getType()), Ctx))
              return true;
            // `c + zext Y` (c <= 0): Y >= -c where the edge leaves (the
            // guard of the loop nest, on the narrower bound)
            if (auto *A = dyn_cast<SCEVAddExpr>(S); A && A->getNumOperands() == 2)
              if (auto *K = dyn_cast<SCEVConstant>(A->getOperand(0)); K && !K->getAPInt().isStrictlyPositive() && K->getAPInt().getSignificantBits() <= 20)
                if (auto *Z = dyn_cast<SCEVZeroExtendExpr>(A->getOperand(1))) {
                  const SCEV *Y = Z->getOperand();
                  return SE.isKnownPredicateAt(ICmpInst::ICMP_SGE, Y, SE.getConstant(Y->getType(), -K->getAPInt().getSExtValue(), true), Ctx);
                }
            return false;
          };
          if (nonNegAt(In))
            continue;
          // `x | c`, `x & c` (c >= 0): the vector loop's end index
          if (auto *BO = dyn_cast<BinaryOperator>(In); BO && (BO->getOpcode() == Instruction::Or || BO->getOpcode() == Instruction::And))
            if (auto *C = dyn_cast<ConstantInt>(BO->getOperand(1)); C && !C->isNegative())
              if (BO->getOpcode() == Instruction::And || nonNegAt(BO->getOperand(0)))
                continue;
          if (debugLoops())
            errs() << "dao-debug: phi incoming not known non-negative: " << *In << " = " << *SE.getSCEV(In) << "\n";
          if (!nonNegV(In, d + 1))
            return false;
        }
        return true;
      }
      return SE.isSCEVable(V->getType()) && SE.isKnownNonNegative(SE.getSCEV(V));
    };
    auto nonNeg = [&](const SCEV *T) -> bool {
      if (SE.isKnownNonNegative(T))
        return true;
      if (auto *M = dyn_cast<SCEVMulExpr>(T); M && M->getNumOperands() == 2)
        if (auto *K = dyn_cast<SCEVConstant>(M->getOperand(0)); K && !K->getAPInt().isNegative())
          T = M->getOperand(1);
      if (isa<SCEVZeroExtendExpr>(T))
        return true;
      auto *U = dyn_cast<SCEVUnknown>(T);
      return U && nonNegV(U->getValue(), 0);
    };
    if (auto *A = dyn_cast<SCEVAddExpr>(Start)) {
      SmallVector<const SCEV *, 4> keep;
      for (const SCEV *Op : A->operands()) {
        if (isa<SCEVConstant>(Op) || SCEVExprContains(Op, [](const SCEV *X) { return isa<SCEVAddRecExpr>(X); }))
          keep.push_back(Op);
        else if (!nonNeg(Op)) {
          if (debugLoops())
            errs() << "dao-debug: start term not known non-negative: " << *Op << "\n";
          return false;
        }
      }
      StartLo = keep.empty() ? SE.getZero(Start->getType()) : SE.getAddExpr(keep);
    }
    const SCEV *D = SE.getAddExpr(D0, SE.getMinusSCEV(Start, StartLo));
    DaoUB b;
    if (!upper(D, b, 0)) {
      if (debugLoops())
        errs() << "dao-debug: span not bounded: " << *D << " (BTC " << *BTC << ")\n";
      return false;
    }
    // e-byte cells: the stride, or (the innermost dimension of a vector
    // access, `Size` a multiple of the count's coefficient) the elements
    int64_t e = b.hasU && b.coef ? b.coef : s;
    bool inner = R.ndims == 0;
    bool cells = inner && e < s && (int64_t)R.size % e == 0 && (int64_t)R.size >= s;
    if (e <= 0 || s % e != 0 || (e != s && !cells)) {
      if (debugLoops())
        errs() << "dao-debug: span of stride " << s << " size " << R.size << " counted by " << e << "\n";
      return false;
    }
    auto fdiv = [](int64_t a, int64_t d) { return a >= 0 ? a / d : -((-a + d - 1) / d); };
    // the read runs in the iteration that exits only when the exiting
    // block does not come before it (mayCount): else one less
    int64_t extra = (cells ? (int64_t)R.size / e : 1) - (mayCount(L, X, 0) == 0 ? 1 : 0);
    int64_t add = fdiv(b.c, e) + extra;
    int64_t floor = b.floor == INT64_MIN ? 0 : std::max<int64_t>(0, fdiv(b.floor, e) + extra);
    R.stride[R.ndims] = e;
    if (b.hasU && b.coef) {
      DaoSym u = b.u;
      u.add = add;
      u.low = b.low;
      R.sym[R.ndims] = u;
      R.floor[R.ndims] = floor;
      R.symMask |= 1u << R.ndims;
      R.count[R.ndims] = 0;
    } else {
      int64_t n = std::max(add, floor);
      if (n < 0 || n > (int64_t(1) << 40))
        return false;
      R.count[R.ndims] = (uint64_t)n;
    }
    if (cells)
      R.size = (uint64_t)e;
    R.ndims++;
    O = StartLo;
    return true;
  };
  // peelMay for a loop whose maximum trip count is not a constant but
  // bounded by a bound load (a read's box only).
  auto peelMaySym = [&](const SCEV *&O, Loop *L, BasicBlock *X, auto &R) -> bool {
    auto *AR = dyn_cast<SCEVAddRecExpr>(O);
    if (!AR || AR->getLoop() != L || !AR->isAffine() || R.ndims == 8)
      return false;
    auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!St || St->getAPInt().getSignificantBits() > 48)
      return false;
    DaoSym u;
    int64_t floor;
    if (!symMayBTC(L, u, floor)) {
      if (debugLoops())
        errs() << "dao-debug: no symbolic may-count: " << *btcOf(L) << "\n";
      return false;
    }
    int64_t plus = (int64_t)mayCount(L, X, 0);
    R.stride[R.ndims] = St->getAPInt().getSExtValue();
    R.count[R.ndims] = 0;
    u.add += plus;
    R.sym[R.ndims] = u;
    R.floor[R.ndims] = floor == INT64_MIN ? 0 : std::max<int64_t>(floor + plus, 0);
    R.symMask |= 1u << R.ndims;
    R.ndims++;
    O = AR->getStart();
    return true;
  };
  // A branch condition `a + U pred k` (U a bound load, k a constant) that
  // goes the wanted way whenever U is at least m (for loop guards).
  auto boundOf = [&](const SCEV *S, int64_t &a, DaoSym &u) -> bool {
    a = 0;
    if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
      auto *K = dyn_cast<SCEVConstant>(A->getOperand(0));
      if (A->getNumOperands() != 2 || !K || K->getAPInt().getSignificantBits() > 20)
        return false;
      a = K->getAPInt().getSExtValue();
      S = A->getOperand(1);
    }
    auto Bd = boundLoad(S);
    if (!Bd)
      return false;
    u = *Bd;
    return true;
  };
  auto decide = [&](ICmpInst *IC, bool wantTrue, DaoSym &u, int64_t &m) -> bool {
    if (!SE.isSCEVable(IC->getOperand(0)->getType()) || !IC->getOperand(0)->getType()->isIntegerTy())
      return false;
    ICmpInst::Predicate Pr = wantTrue ? IC->getPredicate() : IC->getInversePredicate();
    const SCEV *L = SE.getSCEV(IC->getOperand(0)), *R = SE.getSCEV(IC->getOperand(1));
    if (isa<SCEVConstant>(L)) {
      std::swap(L, R);
      Pr = ICmpInst::getSwappedPredicate(Pr);
    }
    auto *K = dyn_cast<SCEVConstant>(R);
    int64_t a;
    if (!K || K->getAPInt().getSignificantBits() > 40 || !boundOf(L, a, u))
      return false;
    if (8 * u.bytes > IC->getOperand(0)->getType()->getIntegerBitWidth())
      return false;
    int64_t k = K->getAPInt().getSExtValue();
    switch (Pr) {
    case ICmpInst::ICMP_SGT:
    case ICmpInst::ICMP_UGT:
    case ICmpInst::ICMP_NE:
      m = k + 1 - a;
      break;
    case ICmpInst::ICMP_SGE:
    case ICmpInst::ICMP_UGE:
      m = k - a;
      break;
    default:
      return false;
    }
    if (ICmpInst::isUnsigned(Pr) && k < 0)
      return false;
    // a + U not negative: signed and unsigned readings agree
    m = std::max({m, -a, (int64_t)0});
    return true;
  };
  // A branch condition taken towards `wantTrue` when bound loads are large
  // enough: `decide`'s comparisons, a comparison ScalarEvolution knows to
  // go that way (no requirement: the team view's `lb > ub` test of a
  // worksharing loop, its bounds those of the whole iteration space), and
  // logical and / or of such (`select i1 a, i1 b, i1 false`, `and i1`:
  // both true; `select i1 a, i1 true, i1 b`, `or i1`: both false). The
  // requirements join G (one per bound, the largest), none when the way
  // is certain.
  std::function<bool(Value *, bool, std::vector<std::pair<DaoSym, int64_t>> &, int)> decideAll;
  decideAll = [&](Value *Cond, bool wantTrue, std::vector<std::pair<DaoSym, int64_t>> &G, int depth) -> bool {
    if (depth > 3)
      return false;
    if (auto *IC = dyn_cast<ICmpInst>(Cond)) {
      if (SE.isSCEVable(IC->getOperand(0)->getType()) && IC->getOperand(0)->getType()->isIntegerTy()) {
        ICmpInst::Predicate Pr = wantTrue ? IC->getPredicate() : IC->getInversePredicate();
        if (SE.isKnownPredicate(Pr, SE.getSCEV(IC->getOperand(0)), SE.getSCEV(IC->getOperand(1))))
          return true;
      }
      DaoSym u;
      int64_t m;
      if (!decide(IC, wantTrue, u, m))
        return false;
      for (auto &[v, mv] : G)
        if (v.G == u.G && v.off == u.off && v.bytes == u.bytes && v.sgn == u.sgn) {
          mv = std::max(mv, m);
          return true;
        }
      G.push_back({u, m});
      return true;
    }
    Value *A = nullptr, *B = nullptr;
    bool isAnd = false;
    if (auto *Sel = dyn_cast<SelectInst>(Cond); Sel && Sel->getType()->isIntegerTy(1)) {
      auto *T = dyn_cast<ConstantInt>(Sel->getTrueValue()), *F = dyn_cast<ConstantInt>(Sel->getFalseValue());
      if (F && F->isZero()) {
        isAnd = true;
        A = Sel->getCondition();
        B = Sel->getTrueValue();
      } else if (T && T->isOne()) {
        A = Sel->getCondition();
        B = Sel->getFalseValue();
      }
    } else if (auto *BO = dyn_cast<BinaryOperator>(Cond); BO && BO->getType()->isIntegerTy(1) && (BO->getOpcode() == Instruction::And || BO->getOpcode() == Instruction::Or)) {
      isAnd = BO->getOpcode() == Instruction::And;
      A = BO->getOperand(0);
      B = BO->getOperand(1);
    }
    // a and b true / a or b false: both, each that way
    if (!A || isAnd != wantTrue)
      return false;
    return decideAll(A, wantTrue, G, depth + 1) && decideAll(B, wantTrue, G, depth + 1);
  };
  // A store's address and byte count: a non-volatile store, or a memory
  // intrinsic of constant length.
  auto storeAccess = [&](Instruction &I) -> std::optional<std::pair<Value *, uint64_t>> {
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (SI->isVolatile())
        return std::nullopt;
      return std::make_pair(SI->getPointerOperand(), (uint64_t)DL.getTypeStoreSize(SI->getValueOperand()->getType()).getFixedValue());
    }
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      auto *Len = dyn_cast<ConstantInt>(MI->getLength());
      if (MI->isVolatile() || !Len)
        return std::nullopt;
      return std::make_pair(MI->getDest(), Len->getZExtValue());
    }
    return std::nullopt;
  };
  // LLVM's runtime unrolling (UnrollRuntimeLoopRemainder, epilogue form:
  // -O2/-O3 unroll innermost loops of unknown count by k = 2 to 8) of
  // `for (m = 0; m < X; m++) write base + s*m` (issue #33: NPB BT's and
  // SP's `rhs = forcing` copy, FT's copy-out of `u2`):
  //
  //   G:    br X < k, E, L                 (no G when X >= k is known)
  //   L:    k copies, at base + s*(iv + j) for j < k; iv += k; niter += k;
  //         leaves when niter == X & -k
  //   E:    iv.unr = phi [iv0, G], [iv + k, L]
  //         br (X & (k-1)) == 0, After, Epil
  //   Epil: k == 2: one copy at base + s*(iv.unr - iv0); else a loop of
  //         X & (k-1) iterations from there, step s
  //
  // Together they write base + s*m for every m < X: the main loop the
  // first X & -k, the epilogue the rest (all of them when G skips the main
  // loop, X < k). Every piece is checked (`unrollShape` the loops and
  // blocks, `unrolledCover` a write's k + 1 copies), so the claim is never
  // wider than the writes. Reads (`peelUnrolled`) need no copy but their
  // own: wherever it is, it reads base + s*m for some m < X.
  struct DaoUnrollShape {
    int64_t k;
    Value *Xv;             // X, the original trip count
    const SCEV *XS;
    BinaryOperator *XT;    // X & (k-1)
    BasicBlock *Latch, *E, *After, *G, *anchor;
    // E's phis carrying the induction variable out of L: (iv.unr, iv0)
    std::vector<std::pair<PHINode *, const SCEV *>> ivs;
    // k == 2: the blocks the epilogue runs straight through, in L's parent
    std::vector<BasicBlock *> epil;
    // k > 2: the epilogue loop, X & (k-1) iterations
    Loop *LE = nullptr;
    // a vectorised loop's shape (`vectorShape`, reads only): k lanes per
    // iteration, LE the scalar loop that finishes the iterations
    bool vec = false;
    // iterations of the original loop per iteration of LE: 2 when LE is
    // itself unrolled in the prologue form (`prologueForm`, reads only)
    int64_t kLE = 1;
    // the prologue form of a loop that is not vectorised (`prologueShape`):
    // no main loop, LE the unrolled loop; every read is an epilogue read
    bool prolOnly = false;
  };
  std::map<Loop *, std::optional<DaoUnrollShape>> shapeCache;
  // The pieces of the shape around innermost loop L, each checked; what
  // does not depend on the accesses (their copies: `unrolledCover` for
  // writes, `peelUnrolled` for reads).
  auto unrollShape = [&](Loop *L) -> std::optional<DaoUnrollShape> {
    if (auto It = shapeCache.find(L); It != shapeCache.end())
      return It->second;
    auto no = [&](const char *why) -> std::optional<DaoUnrollShape> {
      if (debugLoops())
        errs() << "dao-debug: loop " << LoopIx[L] << " (" << L->getHeader()->getName() << "): not a runtime-unrolled loop: " << why << "\n";
      return shapeCache[L] = std::nullopt;
    };
    BasicBlock *Hdr = L->getHeader(), *Latch = L->getLoopLatch(), *E = L->getExitBlock();
    if (!L->isInnermost() || !Latch || !E || L->getExitingBlock() != Latch)
      return shapeCache[L] = std::nullopt;
    auto *LBr = dyn_cast<BranchInst>(Latch->getTerminator());
    auto *LCmp = LBr && LBr->isConditional() ? dyn_cast<ICmpInst>(LBr->getCondition()) : nullptr;
    if (!LCmp || !LCmp->isEquality() || (LCmp->getPredicate() == ICmpInst::ICMP_EQ) != (LBr->getSuccessor(0) == E))
      return shapeCache[L] = std::nullopt; // leaves on `niter.next == X & -k` only
    // niter.next = niter + k, niter = phi [0, entry], [niter.next, latch]
    auto niterStep = [&](Value *V) -> int64_t {
      auto *Add = dyn_cast<BinaryOperator>(V);
      auto *P = Add && Add->getOpcode() == Instruction::Add ? dyn_cast<PHINode>(Add->getOperand(0)) : nullptr;
      auto *K = Add ? dyn_cast<ConstantInt>(Add->getOperand(1)) : nullptr;
      if (!P || !K || P->getParent() != Hdr || P->getNumIncomingValues() != 2 || K->getValue().getActiveBits() > 8)
        return 0;
      for (unsigned q = 0; q < 2; ++q) {
        Value *In = P->getIncomingValue(q);
        auto *Z = dyn_cast<ConstantInt>(In);
        if (P->getIncomingBlock(q) == Latch ? In != Add : !(Z && Z->isZero()))
          return 0;
      }
      return K->getSExtValue();
    };
    // or the compare before the increment: `niter == (X & -k) - k`
    auto niterPhi = [&](Value *V) -> int64_t {
      auto *P = dyn_cast<PHINode>(V);
      if (!P || P->getParent() != Hdr || P->getNumIncomingValues() != 2)
        return 0;
      for (unsigned q = 0; q < 2; ++q)
        if (P->getIncomingBlock(q) == Latch)
          if (auto *Add = dyn_cast<BinaryOperator>(P->getIncomingValue(q)); Add && Add->getOperand(0) == P)
            return niterStep(Add);
      return 0;
    };
    Value *UI = nullptr;
    int64_t k = 0;
    bool pre = false;
    for (unsigned side = 0; side < 2 && !k; ++side) {
      if ((k = niterStep(LCmp->getOperand(side)))) {
        UI = LCmp->getOperand(1 - side);
      } else if ((k = niterPhi(LCmp->getOperand(side)))) {
        UI = LCmp->getOperand(1 - side);
        pre = true;
      }
    }
    if (k < 2 || k > 64 || (k & (k - 1)))
      return shapeCache[L] = std::nullopt;
    // UI = X & -k, as W & M (M clears exactly the low log2(k) bits of any
    // W), less a constant c2 (a multiple of k) where X = W - c, c = c2 (c2
    // - k when compared before the increment): (W - c) & -k == (W & -k) -
    // c and (W - c) & (k-1) == W & (k-1) for c a multiple of k
    int64_t c = pre ? -k : 0;
    if (auto *Sub = dyn_cast<BinaryOperator>(UI); Sub && Sub->getOpcode() == Instruction::Add)
      if (auto *C2 = dyn_cast<ConstantInt>(Sub->getOperand(1)); C2 && C2->getValue().getSignificantBits() <= 20) {
        c -= C2->getSExtValue();
        UI = Sub->getOperand(0);
      }
    if (c % k)
      return no("the main loop's limit is not (X & -k) less a multiple of k");
    auto *UA = dyn_cast<BinaryOperator>(UI);
    auto *M = UA && UA->getOpcode() == Instruction::And ? dyn_cast<ConstantInt>(UA->getOperand(1)) : nullptr;
    if (!M)
      return no("the main loop's limit is not X & mask");
    Value *Xv = UA->getOperand(0);
    const SCEV *WS = SE.getSCEV(Xv);
    const SCEV *XS = SE.getMinusSCEV(WS, SE.getConstant(WS->getType(), c, true));
    APInt low(M->getValue().getBitWidth(), uint64_t(k - 1));
    APInt cover = M->getValue() | low;
    // W's largest value (`zext nneg` of an i32 extent: below 2^31, which
    // ScalarEvolution's range does not say)
    APInt xmax = SE.getUnsignedRangeMax(WS);
    // (or of one the conditions guarding the loop make non-negative)
    if (auto *Z = dyn_cast<ZExtInst>(Xv); Z && (Z->hasNonNeg() || SE.isKnownPredicateAt(ICmpInst::ICMP_SGE, SE.getSCEV(Z->getOperand(0)), SE.getZero(Z->getSrcTy()), &*Hdr->getFirstInsertionPt())))
      xmax = APIntOps::umin(xmax, APInt::getSignedMaxValue(Z->getSrcTy()->getIntegerBitWidth()).zext(xmax.getBitWidth()));
    if (!(M->getValue() & low).isZero() || !cover.isMask() || xmax.ugt(cover))
      return no("the mask does not round X down to a multiple of k");
    // E: br (X & (k-1)) == 0, After, Epil
    auto *EBr = dyn_cast<BranchInst>(E->getTerminator());
    auto *ECmp = EBr && EBr->isConditional() ? dyn_cast<ICmpInst>(EBr->getCondition()) : nullptr;
    if (!ECmp || !ECmp->isEquality())
      return no("no remainder test after the main loop");
    auto *XT = dyn_cast<BinaryOperator>(ECmp->getOperand(0));
    auto *XTk = XT && XT->getOpcode() == Instruction::And ? dyn_cast<ConstantInt>(XT->getOperand(1)) : nullptr;
    auto *Zero = dyn_cast<ConstantInt>(ECmp->getOperand(1));
    // (X itself or another instruction of the same value: `n - 1` computed
    // twice when the loop starts at 1)
    if (!XTk || (XT->getOperand(0) != Xv && SE.getSCEV(XT->getOperand(0)) != XS && SE.getSCEV(XT->getOperand(0)) != WS) || XTk->getValue() != low || !Zero || !Zero->isZero())
      return no("the remainder test is not (X & (k-1)) == 0");
    bool eq = ECmp->getPredicate() == ICmpInst::ICMP_EQ;
    BasicBlock *Epil = EBr->getSuccessor(eq ? 1 : 0), *After = EBr->getSuccessor(eq ? 0 : 1);
    // the guard G, when E has a second predecessor: it must go to E
    // exactly when X < k (X >= 1: the loop was entered)
    BasicBlock *G = nullptr, *anchor = L->getLoopPredecessor();
    if (!anchor)
      return shapeCache[L] = std::nullopt;
    for (BasicBlock *P : predecessors(E)) {
      if (P == Latch)
        continue;
      if (G)
        return no("E has more than two predecessors");
      G = P;
    }
    if (G) {
      auto *GBr = dyn_cast<BranchInst>(G->getTerminator());
      auto *GC = GBr && GBr->isConditional() ? dyn_cast<ICmpInst>(GBr->getCondition()) : nullptr;
      if (!GC)
        return no("the guard is not a comparison");
      BasicBlock *Other = GBr->getSuccessor(GBr->getSuccessor(0) == E ? 1 : 0);
      if (Other == E || !(Other == Hdr || (Other == anchor && Other->getSingleSuccessor() == Hdr && Other->getSinglePredecessor() == G)))
        return no("the guard does not choose between the main loop and E");
      ICmpInst::Predicate Pr = GBr->getSuccessor(0) == E ? GC->getPredicate() : GC->getInversePredicate();
      auto *KC = dyn_cast<ConstantInt>(GC->getOperand(1));
      Value *A = GC->getOperand(0);
      // A == X + d in A's width, X fitting in it
      auto isXPlus = [&](int64_t d) -> bool {
        unsigned wa = A->getType()->getIntegerBitWidth();
        if (SE.getUnsignedRangeMax(XS).getActiveBits() > wa)
          return false;
        const SCEV *D = SE.getMinusSCEV(SE.getSCEV(A), SE.getTruncateOrZeroExtend(XS, A->getType()));
        auto *DC = dyn_cast<SCEVConstant>(D);
        return DC && DC->getAPInt().getSExtValue() == d;
      };
      // (k = 2, A == W + dw in A's width, W fitting in it: A == KC just
      // when W == KC - dw, X == KC - dw - c; X >= 1, so X < 2 is X == 1)
      auto eqOne = [&]() -> bool {
        unsigned wa = A->getType()->getIntegerBitWidth();
        // (or W == zext(A) + dW, A narrower: A == KC just when W == KC + dW,
        // zext and adding a constant being one-to-one; NPB SP's `j <=
        // grid_points[1] - 2` rows, X = zext(n - 1) - 1 tested as n - 1 == 2)
        if (KC && A->getType() != WS->getType() && WS->getType()->getIntegerBitWidth() > wa && KC->getValue().getSignificantBits() <= 20) {
          const SCEV *DW = SE.getMinusSCEV(WS, SE.getZeroExtendExpr(SE.getSCEV(A), WS->getType()));
          if (auto *DC = dyn_cast<SCEVConstant>(DW); DC && DC->getAPInt().getSignificantBits() <= 20)
            return (int64_t)KC->getValue().getZExtValue() + DC->getAPInt().getSExtValue() == 1 + c;
        }
        if (SE.getUnsignedRangeMax(WS).getActiveBits() > wa)
          return false;
        auto *DC = dyn_cast<SCEVConstant>(SE.getMinusSCEV(SE.getSCEV(A), SE.getTruncateOrZeroExtend(WS, A->getType())));
        return DC && DC->getAPInt().getSignificantBits() <= 20 && KC->getValue().getSignificantBits() <= 20 && KC->getSExtValue() - DC->getAPInt().getSExtValue() == 1 + c;
      };
      bool ok = KC && ((c == 0 && Pr == ICmpInst::ICMP_ULT && KC->getSExtValue() == k - 1 && isXPlus(-1)) ||
                       (c == 0 && Pr == ICmpInst::ICMP_ULT && KC->getSExtValue() == k && isXPlus(0)) ||
                       (Pr == ICmpInst::ICMP_EQ && k == 2 && eqOne()));
      if (!ok)
        return no("the guard is not X < k");
      anchor = G;
    }
    DaoUnrollShape Sh{k, Xv, XS, XT, Latch, E, After, G, anchor, {}, {}, nullptr, false};
    // iv.unr: a phi of E, [iv0, G] and [{iv0 + k, +, k}<L>, latch]: the
    // epilogue's copies at base + s*(iv.unr - iv0)
    for (PHINode &P : E->phis()) {
      if (!P.getType()->isIntegerTy() || !SE.isSCEVable(P.getType()))
        continue;
      const SCEV *FromL = nullptr, *Iv0 = nullptr;
      for (unsigned q = 0; q < P.getNumIncomingValues(); ++q)
        (P.getIncomingBlock(q) == Latch ? FromL : Iv0) = SE.getSCEV(P.getIncomingValue(q));
      auto *IR = FromL ? dyn_cast<SCEVAddRecExpr>(FromL) : nullptr;
      if (!IR || IR->getLoop() != L || !IR->isAffine() || IR->getStepRecurrence(SE) != SE.getConstant(P.getType(), k))
        continue;
      const SCEV *Start0 = SE.getMinusSCEV(IR->getStart(), SE.getConstant(P.getType(), k));
      if (Iv0 ? Iv0 != Start0 : G != nullptr)
        continue;
      Sh.ivs.push_back({&P, Start0});
    }
    if (Sh.ivs.empty())
      return no("no induction variable carried into the epilogue");
    // the epilogue: the blocks Epil runs straight through (to After or to
    // an epilogue loop's entry), in L's parent
    Loop *Par = L->getParentLoop();
    BasicBlock *B = Epil, *Prev = E;
    for (int n = 0; n < 8 && B != After && LI.getLoopFor(B) == Par; ++n) {
      if (B->getSinglePredecessor() != Prev)
        return no("the epilogue has a side entry");
      Sh.epil.push_back(B);
      Prev = B;
      B = B->getSingleSuccessor();
      if (!B)
        break;
    }
    if (k == 2)
      return shapeCache[L] = Sh;
    if (!B || B == After)
      return no("no epilogue loop");
    // k > 2: an innermost loop LE entered from there, X & (k-1) iterations
    // (epil.iter = phi [0, entry], [epil.iter + 1, latch]; leaves when
    // epil.iter + 1 == X & (k-1))
    Loop *LE = LI.getLoopFor(B);
    BasicBlock *LEl = LE ? LE->getLoopLatch() : nullptr;
    if (!LE || LE->getHeader() != B || LE->getParentLoop() != Par || !LE->isInnermost() || !LEl || LE->getExitingBlock() != LEl || LE->getLoopPredecessor() != Prev)
      return no("no epilogue loop");
    auto *XBr = dyn_cast<BranchInst>(LEl->getTerminator());
    auto *XCmp = XBr && XBr->isConditional() ? dyn_cast<ICmpInst>(XBr->getCondition()) : nullptr;
    BasicBlock *LEx = LE->getExitBlock();
    if (!XCmp || !LEx || !XCmp->isEquality() || (XCmp->getPredicate() == ICmpInst::ICMP_EQ) != (XBr->getSuccessor(0) == LEx))
      return no("the epilogue loop does not leave on a count");
    auto *EAdd = dyn_cast<BinaryOperator>(XCmp->getOperand(0));
    auto *EP = EAdd && EAdd->getOpcode() == Instruction::Add ? dyn_cast<PHINode>(EAdd->getOperand(0)) : nullptr;
    auto *One = EAdd ? dyn_cast<ConstantInt>(EAdd->getOperand(1)) : nullptr;
    if (!EP || !One || !One->isOne() || (XCmp->getOperand(1) != XT && SE.getSCEV(XCmp->getOperand(1)) != SE.getSCEV(XT)) || EP->getParent() != B || EP->getNumIncomingValues() != 2)
      return no("the epilogue loop does not count to X & (k-1)");
    for (unsigned q = 0; q < 2; ++q) {
      auto *Z = dyn_cast<ConstantInt>(EP->getIncomingValue(q));
      if (EP->getIncomingBlock(q) == LEl ? EP->getIncomingValue(q) != EAdd : !(Z && Z->isZero()))
        return no("the epilogue loop's counter does not start at 0");
    }
    Sh.LE = LE;
    return shapeCache[L] = Sh;
  };
  // The loop vectorizer's shape (reads only; its writes are not taken
  // whole): `for (iv = iv0; iv < iv0 + X; iv++)` as
  //
  //   VB:  index = phi [0, pre], [index + k, VB]; leaves when index + k ==
  //        NV, NV = X & -k or X - X urem k (a multiple of k, at most X)
  //   ME:  br X == NV, Exit, SPH           (VB's only exit)
  //   SPH: P = phi [iv0 + NV, ME], [iv0, each bypass]
  //   LS:  the scalar loop from P to the original end
  //
  // A read in VB, {base + s*j, +, k*s}<VB> for t < NV/k iterations, reads
  // base + s*(j + k*t) with j + k*t <= NV - 1 < X (j < k); one in LS
  // reads base + s*(P - iv0 + e) where P - iv0 is 0 or NV < X and the
  // scalar loop's backedge-taken count is X - 1 - (P - iv0): checked as a
  // ScalarEvolution identity. As `unrollShape`'s, with vec set, LE the
  // scalar loop, ivs {(P, iv0)}, the anchor the block dominating both.
  // The runtime unroller's prologue form (issue #33, NPB SP's and MG's
  // remainder loops): LLVM takes it when the loop's start is not a
  // constant, as for the vectoriser's scalar loop, which starts where the
  // vector loop stopped. A loop from P to End (End = iv0 + X, P >= iv0),
  // entered at block Pre:
  //
  //   Pre:  br c, PLX, PROL          (either order; c: an even count)
  //   PROL: the body once, at P; br PLX
  //   PLX:  unr = phi [P, Pre], [P + 1, PROL]
  //         br A == B, Exit, H2      (A - B = +-(P - (End - 1)))
  //   LS2:  iv = phi [unr, PLX], [iv + 2, latch]; leaves when iv + 2 == End
  //
  // LS2 leaves on equality and its add does not wrap (nsw or nuw), so
  // every iteration it runs has iv + 2 <= End: its copies read at iv and
  // iv + 1, both at most End - 1. PROL's read at P: PLX leaves only when
  // P == End - 1, else LS2 runs from P + 1 <= End - 2. Every read lies at
  // base + s*(i - iv0) for an i in [iv0, End - 1], m = i - iv0 < X, as the
  // other shapes' reads do (`peelUnrolled`; reads only: nothing here says
  // that every iteration runs, which a write's box would need).
  struct DaoProlog {
    BasicBlock *prol;
    Loop *LS2;
    PHINode *unr;
  };
  auto prologueForm = [&](BasicBlock *Pre, Value *P, const SCEV *Iv0, const SCEV *XS) -> std::optional<DaoProlog> {
    auto *Br = dyn_cast<BranchInst>(Pre->getTerminator());
    if (!Br || !Br->isConditional() || !P->getType()->isIntegerTy() || !SE.isSCEVable(P->getType()))
      return std::nullopt;
    Loop *Par = LI.getLoopFor(Pre);
    const SCEV *PS = SE.getSCEV(P);
    for (unsigned side = 0; side < 2; ++side) {
      BasicBlock *PROL = Br->getSuccessor(side), *PLX = Br->getSuccessor(1 - side);
      if (PROL == PLX || PROL->getSinglePredecessor() != Pre || PROL->getSingleSuccessor() != PLX || LI.getLoopFor(PROL) != Par || LI.getLoopFor(PLX) != Par)
        continue;
      if (pred_size(PLX) != 2)
        continue;
      auto *XBr = dyn_cast<BranchInst>(PLX->getTerminator());
      auto *XC = XBr && XBr->isConditional() ? dyn_cast<ICmpInst>(XBr->getCondition()) : nullptr;
      if (!XC || !XC->isEquality())
        continue;
      bool eq = XC->getPredicate() == ICmpInst::ICMP_EQ;
      BasicBlock *Exit = XBr->getSuccessor(eq ? 0 : 1), *H2 = XBr->getSuccessor(eq ? 1 : 0);
      Loop *LS2 = LI.getLoopFor(H2);
      if (!LS2 || LS2->getHeader() != H2 || LS2->getParentLoop() != Par || !LS2->isInnermost() || LS2->getLoopPredecessor() != PLX || Exit == H2 || LS2->contains(Exit))
        continue;
      BasicBlock *Latch2 = LS2->getLoopLatch();
      if (!Latch2 || LS2->getExitingBlock() != Latch2)
        continue;
      auto *LBr = dyn_cast<BranchInst>(Latch2->getTerminator());
      auto *LC = LBr && LBr->isConditional() ? dyn_cast<ICmpInst>(LBr->getCondition()) : nullptr;
      if (!LC || !LC->isEquality() || (LC->getPredicate() == ICmpInst::ICMP_EQ) != !LS2->contains(LBr->getSuccessor(0)))
        continue;
      // iv + 2 == End, iv = phi [unr, PLX], [iv + 2, latch]; or, an i64
      // induction variable of an `int` loop, trunc(iv + 2) == End32 (the
      // worksharing loops at -O2: issue #33's heap objects): the test then
      // holds first at iv + 2 == iv0 + X (checked below), since the
      // distance from there back to the loop's start is below 2^32
      PHINode *Unr = nullptr;
      const SCEV *End = nullptr;
      bool narrow = false;
      for (unsigned q = 0; q < 2 && !Unr; ++q) {
        Value *Op = LC->getOperand(q);
        bool nq = false;
        if (auto *T = dyn_cast<TruncInst>(Op); T && T->getDestTy()->getIntegerBitWidth() >= 32) {
          Op = T->getOperand(0);
          nq = true;
        }
        auto *Add = dyn_cast<BinaryOperator>(Op);
        auto *Iv = Add && Add->getOpcode() == Instruction::Add ? dyn_cast<PHINode>(Add->getOperand(0)) : nullptr;
        auto *Two = Add ? dyn_cast<ConstantInt>(Add->getOperand(1)) : nullptr;
        if (!Iv || !Two || Two->getSExtValue() != 2 || Iv->getParent() != H2 || Iv->getNumIncomingValues() != 2 || !(Add->hasNoSignedWrap() || Add->hasNoUnsignedWrap()))
          continue;
        Value *Other = LC->getOperand(1 - q);
        if (!SE.isSCEVable(Other->getType()) || !SE.isLoopInvariant(SE.getSCEV(Other), LS2))
          continue;
        PHINode *U = nullptr;
        bool ok = true;
        for (unsigned r = 0; r < 2; ++r) {
          if (Iv->getIncomingBlock(r) == Latch2)
            ok &= Iv->getIncomingValue(r) == Add;
          else if (Iv->getIncomingBlock(r) == PLX)
            U = dyn_cast<PHINode>(Iv->getIncomingValue(r));
          else
            ok = false;
        }
        if (ok && U && U->getParent() == PLX) {
          Unr = U;
          End = SE.getSCEV(Other);
          narrow = nq;
        }
      }
      if (Unr && narrow && Iv0->getType() == XS->getType() && End->getType() != Iv0->getType() &&
          Iv0->getType()->getIntegerBitWidth() == 64 && End->getType()->getIntegerBitWidth() == 32) {
        // the wide end this shape claims, iv0 + X, truncated is the test's
        const SCEV *Wide = SE.getAddExpr(Iv0, XS);
        if (SE.getTruncateExpr(Wide, End->getType()) != End)
          continue;
        End = Wide;
      }
      if (!Unr || Unr->getType() != P->getType() || End->getType() != Iv0->getType() || XS->getType() != End->getType())
        continue;
      // unr = phi [P, Pre], [P + 1, PROL]
      bool ok = Unr->getNumIncomingValues() == 2;
      for (unsigned r = 0; ok && r < 2; ++r) {
        const SCEV *In = SE.getSCEV(Unr->getIncomingValue(r));
        if (Unr->getIncomingBlock(r) == Pre)
          ok = In == PS;
        else if (Unr->getIncomingBlock(r) == PROL)
          ok = In == SE.getAddExpr(PS, SE.getOne(P->getType()));
        else
          ok = false;
      }
      // End = iv0 + X, and PLX leaves exactly when P == End - 1
      if (!ok || SE.getMinusSCEV(End, Iv0) != XS)
        continue;
      const SCEV *D = SE.getMinusSCEV(SE.getSCEV(XC->getOperand(0)), SE.getSCEV(XC->getOperand(1)));
      const SCEV *Want = SE.getMinusSCEV(PS, SE.getMinusSCEV(End, SE.getOne(End->getType())));
      // (a narrow test compares the truncated values: P and End - 1 lie
      // less than 2^32 apart, so they are equal exactly when those are)
      if (D->getType() != Want->getType() && narrow && D->getType()->getIntegerBitWidth() == 32 && Want->getType()->getIntegerBitWidth() == 64)
        Want = SE.getTruncateExpr(Want, D->getType());
      if (D->getType() != Want->getType() || (D != Want && D != SE.getNegativeSCEV(Want)))
        continue;
      return DaoProlog{PROL, LS2, Unr};
    }
    return std::nullopt;
  };
  // A loop in the prologue form that is not vectorised, as LS2 (its start
  // iv0 = P, a value invariant in its parent): the shape for its reads,
  // X = End - iv0 iterations.
  std::map<Loop *, std::optional<DaoUnrollShape>> prolCache;
  auto prologueShape = [&](Loop *LS2) -> std::optional<DaoUnrollShape> {
    if (auto It = prolCache.find(LS2); It != prolCache.end())
      return It->second;
    BasicBlock *PLX = LS2->getLoopPredecessor();
    if (!LS2->isInnermost() || !PLX)
      return prolCache[LS2] = std::nullopt;
    for (PHINode &U : PLX->phis()) {
      if (!U.getType()->isIntegerTy() || U.getNumIncomingValues() != 2)
        continue;
      for (unsigned r = 0; r < 2; ++r) {
        BasicBlock *Pre = U.getIncomingBlock(r);
        Value *P = U.getIncomingValue(r);
        const SCEV *PS = SE.getSCEV(P);
        if (!isa<SCEVConstant>(PS) && !(LS2->getParentLoop() ? SE.isLoopInvariant(PS, LS2->getParentLoop()) : true))
          continue;
        if (isa<Instruction>(P) && !DT.dominates(cast<Instruction>(P), Pre->getTerminator()))
          continue;
        // X from LS2's exit test: End - P
        auto *LBr = LS2->getLoopLatch() ? dyn_cast<BranchInst>(LS2->getLoopLatch()->getTerminator()) : nullptr;
        auto *LC = LBr && LBr->isConditional() ? dyn_cast<ICmpInst>(LBr->getCondition()) : nullptr;
        if (!LC)
          continue;
        for (unsigned q = 0; q < 2; ++q) {
          Value *Other = LC->getOperand(1 - q);
          if (!SE.isSCEVable(Other->getType()) || Other->getType() != P->getType())
            continue;
          const SCEV *XS = SE.getMinusSCEV(SE.getSCEV(Other), PS);
          auto PF = prologueForm(Pre, P, PS, XS);
          if (!PF || PF->LS2 != LS2 || PF->unr != &U)
            continue;
          DaoUnrollShape Sh{2, nullptr, XS, nullptr, LS2->getLoopLatch(), nullptr, nullptr, nullptr, Pre, {}, {PF->prol}, LS2, false};
          Sh.ivs.push_back({&U, PS});
          Sh.kLE = 2;
          Sh.prolOnly = true;
          return prolCache[LS2] = Sh;
        }
      }
    }
    return prolCache[LS2] = std::nullopt;
  };
  std::map<Loop *, std::optional<DaoUnrollShape>> vecCache;
  auto vectorShape = [&](Loop *VB) -> std::optional<DaoUnrollShape> {
    if (auto It = vecCache.find(VB); It != vecCache.end())
      return It->second;
    auto no = [&](const char *why) -> std::optional<DaoUnrollShape> {
      if (why && debugLoops())
        errs() << "dao-debug: loop " << LoopIx[VB] << ": not a vectorised loop: " << why << "\n";
      return vecCache[VB] = std::nullopt;
    };
    BasicBlock *Hdr = VB->getHeader(), *Latch = VB->getLoopLatch(), *ME = VB->getExitBlock(), *Pre = VB->getLoopPredecessor();
    if (!VB->isInnermost() || !Latch || !ME || !Pre || VB->getExitingBlock() != Latch || ME->getSinglePredecessor() != Latch)
      return no(nullptr);
    auto *LBr = dyn_cast<BranchInst>(Latch->getTerminator());
    auto *LCmp = LBr && LBr->isConditional() ? dyn_cast<ICmpInst>(LBr->getCondition()) : nullptr;
    if (!LCmp || !LCmp->isEquality() || (LCmp->getPredicate() == ICmpInst::ICMP_EQ) != (LBr->getSuccessor(0) == ME))
      return no(nullptr);
    // index.next = index + k, index = phi [0, Pre], [index.next, Latch]
    int64_t k = 0;
    Value *NV = nullptr;
    for (unsigned side = 0; side < 2 && !k; ++side) {
      auto *Add = dyn_cast<BinaryOperator>(LCmp->getOperand(side));
      auto *Ph = Add && Add->getOpcode() == Instruction::Add ? dyn_cast<PHINode>(Add->getOperand(0)) : nullptr;
      auto *K = Add ? dyn_cast<ConstantInt>(Add->getOperand(1)) : nullptr;
      if (!Ph || !K || Ph->getParent() != Hdr || Ph->getNumIncomingValues() != 2 || K->getValue().getActiveBits() > 8 || K->isZero())
        continue;
      bool ok = true;
      for (unsigned q = 0; q < 2; ++q) {
        Value *In = Ph->getIncomingValue(q);
        auto *Z = dyn_cast<ConstantInt>(In);
        ok &= Ph->getIncomingBlock(q) == Latch ? In == Add : (Z && Z->isZero());
      }
      if (ok) {
        k = K->getSExtValue();
        NV = LCmp->getOperand(1 - side);
      }
    }
    if (k < 2 || k > 256)
      return no(nullptr);
    // NV = X & M (M's low log2(k) bits clear, k a power of 2: the mask
    // -k, or a narrower one where X is known small) or X - X urem k: a
    // multiple of k, at most X; or, when the scalar loop must run at least
    // once (k = 2: `X + (X | -2)` = X - 2 + (X & 1)), one below X
    auto *NI = dyn_cast<BinaryOperator>(NV);
    Value *Xv = nullptr;
    bool strict = false;
    if (NI && NI->getOpcode() == Instruction::And && !(k & (k - 1))) {
      auto *M = dyn_cast<ConstantInt>(NI->getOperand(1));
      if (M && (M->getValue() & uint64_t(k - 1)).isZero())
        Xv = NI->getOperand(0);
    } else if (NI && NI->getOpcode() == Instruction::Add && k == 2) {
      for (unsigned side = 0; side < 2 && !Xv; ++side) {
        auto *O = dyn_cast<BinaryOperator>(NI->getOperand(side));
        auto *C = O && O->getOpcode() == Instruction::Or ? dyn_cast<ConstantInt>(O->getOperand(1)) : nullptr;
        if (C && C->getSExtValue() == -2 && O->getOperand(0) == NI->getOperand(1 - side)) {
          Xv = O->getOperand(0);
          strict = true;
        }
      }
    } else if (NI && NI->getOpcode() == Instruction::Sub) {
      auto *R = dyn_cast<BinaryOperator>(NI->getOperand(1));
      auto *KC = R && R->getOpcode() == Instruction::URem ? dyn_cast<ConstantInt>(R->getOperand(1)) : nullptr;
      if (KC && KC->getSExtValue() == k && R->getOperand(0) == NI->getOperand(0))
        Xv = NI->getOperand(0);
    }
    if (!Xv || !Xv->getType()->isIntegerTy()) {
      if (debugLoops())
        errs() << "dao-debug: loop " << LoopIx[VB] << ": vector limit " << *NV << "\n";
      return no("the vector loop's limit is not X & -k or X - X urem k");
    }
    // (NV <= X as unsigned values, whatever X is: the box's count is X's
    // bound as the may-counts of loops take it)
    const SCEV *XS = SE.getSCEV(Xv);
    // ME: br X == NV, Exit, SPH (or, NV < X, br SPH)
    auto *MBr = dyn_cast<BranchInst>(ME->getTerminator());
    const SCEV *NS = SE.getSCEV(NV);
    BasicBlock *SPH = nullptr;
    if (MBr && !MBr->isConditional() && strict) {
      SPH = MBr->getSuccessor(0);
    } else {
      auto *MCmp = MBr && MBr->isConditional() ? dyn_cast<ICmpInst>(MBr->getCondition()) : nullptr;
      if (!MCmp || MCmp->getPredicate() != ICmpInst::ICMP_EQ)
        return no("the middle block does not test X == NV");
      const SCEV *M0 = SE.getSCEV(MCmp->getOperand(0)), *M1 = SE.getSCEV(MCmp->getOperand(1));
      if (!((M0 == XS && M1 == NS) || (M0 == NS && M1 == XS)))
        return no("the middle block does not test X == NV");
      SPH = MBr->getSuccessor(1);
    }
    // SPH: P = phi [iv0 + NV, ME], [iv0, others]; LS entered from SPH
    Loop *LS = nullptr;
    for (Loop *C : VB->getParentLoop() ? VB->getParentLoop()->getSubLoops() : LI.getTopLevelLoops())
      if (C->getLoopPredecessor() == SPH)
        LS = C;
    // (or, unrolled in the prologue form, the prologue and then LS2)
    bool prol = !LS || !LS->isInnermost() || SPH->getSingleSuccessor() != LS->getHeader();
    if (prol && !(isa<BranchInst>(SPH->getTerminator()) && cast<BranchInst>(SPH->getTerminator())->isConditional()))
      return no("no scalar loop after the middle block");
    DaoUnrollShape Sh{k, Xv, XS, nullptr, Latch, ME, nullptr, nullptr, nullptr, {}, {}, prol ? nullptr : LS, true};
    for (PHINode &P : SPH->phis()) {
      if (!P.getType()->isIntegerTy() || P.getType() != XS->getType())
        continue;
      const SCEV *Iv0 = nullptr, *End = nullptr;
      bool ok = true;
      for (unsigned q = 0; q < P.getNumIncomingValues(); ++q) {
        const SCEV *V = SE.getSCEV(P.getIncomingValue(q));
        if (P.getIncomingBlock(q) == ME)
          End = End && End != V ? nullptr : V;
        else if (Iv0 && Iv0 != V)
          ok = false;
        else
          Iv0 = V;
      }
      if (!ok || !Iv0 || !End || (!isa<SCEVConstant>(Iv0) && !SE.isLoopInvariant(Iv0, VB)))
        continue;
      // iv0 + NV: an add ScalarEvolution sees, or `or X, k-1` for iv0 = k - 1
      // ((X & -k) + k - 1 == X | (k - 1))
      bool endOk = SE.getMinusSCEV(End, Iv0) == NS;
      if (!endOk)
        for (unsigned q = 0; q < P.getNumIncomingValues(); ++q)
          if (P.getIncomingBlock(q) == ME)
            if (auto *O = dyn_cast<BinaryOperator>(P.getIncomingValue(q)); O && O->getOpcode() == Instruction::Or && NI->getOpcode() == Instruction::And)
              if (auto *C = dyn_cast<ConstantInt>(O->getOperand(1)); C && C->getSExtValue() == k - 1 && SE.getSCEV(O->getOperand(0)) == XS)
                endOk = Iv0 == SE.getConstant(P.getType(), k - 1);
      if (!endOk)
        continue;
      if (prol) {
        auto PF = prologueForm(SPH, &P, Iv0, XS);
        if (!PF || (Sh.LE && Sh.LE != PF->LS2))
          continue;
        Sh.LE = PF->LS2;
        Sh.kLE = 2;
        if (Sh.epil.empty())
          Sh.epil.push_back(PF->prol);
        Sh.ivs.push_back({&P, Iv0});
        Sh.ivs.push_back({PF->unr, Iv0});
        continue;
      }
      // the scalar loop ends where the original did: (P - iv0) + its
      // backedge-taken count == X - 1
      const SCEV *BTC = btcOf(LS);
      if (isa<SCEVCouldNotCompute>(BTC) || BTC->getType() != P.getType())
        continue;
      if (SE.getAddExpr(SE.getMinusSCEV(SE.getSCEV(&P), Iv0), BTC) != SE.getMinusSCEV(XS, SE.getOne(XS->getType())))
        continue;
      Sh.ivs.push_back({&P, Iv0});
    }
    if (Sh.ivs.empty())
      return no("no start carried into the scalar loop");
    Sh.anchor = DT.findNearestCommonDominator(Pre, SPH);
    if (!Sh.anchor || LI.getLoopFor(Sh.anchor) != VB->getParentLoop())
      return no("no block runs both loops");
    return vecCache[VB] = Sh;
  };
  // the shape whose epilogue holds block B (k == 2: a straight block; k >
  // 2: a block of the epilogue loop), and its main loop
  std::map<BasicBlock *, Loop *> epilOf;
  bool epilIndexed = false;
  auto shapeOfEpilogue = [&](BasicBlock *B) -> std::pair<Loop *, std::optional<DaoUnrollShape>> {
    if (!epilIndexed) {
      epilIndexed = true;
      for (Loop *L : LI.getLoopsInPreorder())
        if (L->isInnermost())
          for (auto Sh : {unrollShape(L), vectorShape(L), prologueShape(L)})
            if (Sh) {
              for (BasicBlock *EB : Sh->epil)
                epilOf[EB] = L;
              if (Sh->LE)
                for (BasicBlock *EB : Sh->LE->blocks())
                  epilOf.insert({EB, L});
            }
    }
    auto It = epilOf.find(B);
    if (It == epilOf.end())
      return {nullptr, std::nullopt};
    auto Sh = unrollShape(It->second);
    if (!Sh)
      Sh = vectorShape(It->second);
    return {It->second, Sh ? Sh : prologueShape(It->second)};
  };
  // A memset or memcpy of a length known only at run time (issue #33:
  // clang's idiom recognition turns `for (k = 0; k < grid_points[2]; k++)
  // rhs[m][i][j][k] = forcing[m][i][j][k]` into one memcpy per row, of
  // 8 * grid_points[2] bytes, NPB SP's `rhs = forcing`): the length as
  // a * (add + U) for an element size a and a bound load U, the count a
  // must-count (a write: the intrinsic writes exactly that many bytes,
  // `symBTC`'s lower bound) or a may-count (a read's source, `symMayBTC`,
  // with its floor). L: the loop holding it (the count's parsing wants
  // one).
  auto symLen = [&](MemIntrinsic *MI, Loop *L, bool may, int64_t &a, DaoSym &u, int64_t &floor) -> bool {
    if (!L || MI->isVolatile() || isa<ConstantInt>(MI->getLength()) || !SE.isSCEVable(MI->getLength()->getType()))
      return false;
    const SCEV *Len = SE.getSCEV(MI->getLength()), *X = Len;
    a = 1;
    if (auto *M = dyn_cast<SCEVMulExpr>(Len); M && M->getNumOperands() == 2)
      if (auto *K = dyn_cast<SCEVConstant>(M->getOperand(0)); K && K->getAPInt().isStrictlyPositive() && K->getAPInt().getActiveBits() <= 20) {
        a = K->getAPInt().getSExtValue();
        X = M->getOperand(1);
      }
    const SCEV *B = SE.getMinusSCEV(X, SE.getOne(X->getType()));
    floor = INT64_MIN;
    if (may ? !symMayBTC(L, u, floor, B) : !symBTC(L, u, B))
      return false;
    // (a length `a * (add + U)`: not a stepping loop's count)
    if (u.div != 1)
      return false;
    u.add += 1;
    return true;
  };
  // storeAccess, and for a memset or memcpy of a length known only at run
  // time the same length as I's (its copies in an unrolled loop): its
  // destination and I's Size
  auto accessLike = [&](Instruction &J, Instruction &I, uint64_t Size) -> std::optional<std::pair<Value *, uint64_t>> {
    if (auto Acc = storeAccess(J))
      return Acc;
    auto *MJ = dyn_cast<MemIntrinsic>(&J);
    auto *MI = dyn_cast<MemIntrinsic>(&I);
    if (!MJ || !MI || MJ->isVolatile() || isa<ConstantInt>(MI->getLength()) || MJ->getLength()->getType() != MI->getLength()->getType() ||
        SE.getSCEV(MJ->getLength()) != SE.getSCEV(MI->getLength()))
      return std::nullopt;
    return std::make_pair(MJ->getDest(), Size);
  };
  // A write in a runtime-unrolled loop taken whole: for the first copy
  // (j = 0) in L, s, X, `base` (invariant in L) and the block that runs
  // the whole (G, or the block entering L), which the loops around take
  // as the write's position.
  struct DaoUnrolled {
    int64_t stride;
    const SCEV *trip;
    const SCEV *base;
    BasicBlock *anchor;
  };
  auto unrolledCover = [&](Instruction &I, Loop *L, const SCEV *Off, uint64_t Size, Value *OrigBase) -> std::optional<DaoUnrolled> {
    auto no = [&](const char *why) -> std::optional<DaoUnrolled> {
      if (debugLoops())
        errs() << "dao-debug: write of " << OrigBase->getName() << " in loop " << LoopIx[L] << ": not a runtime-unrolled loop: " << why << "\n";
      return std::nullopt;
    };
    auto Sh = unrollShape(L);
    if (!Sh)
      return std::nullopt;
    int64_t k = Sh->k;
    // this copy: {base, +, k*s}<L>, running in every iteration
    auto *AR = dyn_cast<SCEVAddRecExpr>(Off);
    auto *St = AR && AR->getLoop() == L && AR->isAffine() ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
    if (!St || St->getAPInt().getSignificantBits() > 48 || !DT.dominates(I.getParent(), Sh->Latch))
      return std::nullopt;
    int64_t step = St->getAPInt().getSExtValue();
    if (step == 0 || step % k)
      return std::nullopt;
    int64_t s = step / k;
    const SCEV *Base = AR->getStart();
    // the other k-1 copies in L, at base + j*s; none before this one
    std::vector<bool> found(k, false);
    found[0] = true;
    for (BasicBlock *B : L->blocks())
      for (Instruction &J : *B) {
        auto Acc = &J == &I ? std::nullopt : accessLike(J, I, Size);
        if (!Acc)
          continue;
        auto OJ = objectOffset(Acc->first, true);
        if (!OJ || OJ->first != OrigBase)
          continue;
        auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(OJ->second, Off));
        if (!D || D->getAPInt().getSignificantBits() > 48)
          continue;
        int64_t d = D->getAPInt().getSExtValue();
        if (d % s == 0 && d / s < 0 && d / s > -k)
          return std::nullopt; // the first copy claims the loop
        if (Acc->second == Size && d % s == 0 && d / s > 0 && d / s < k && DT.dominates(B, Sh->Latch))
          found[d / s] = true;
      }
    for (int64_t j = 1; j < k; ++j)
      if (!found[j])
        return no("not every unrolled copy writes");
    // the epilogue's copies at base + s*(iv.unr - iv0)
    std::vector<const SCEV *> starts;
    for (auto &[P, Start0] : Sh->ivs)
      if (P->getType() == Off->getType())
        starts.push_back(SE.getAddExpr(Base, SE.getMulExpr(SE.getConstant(P->getType(), s), SE.getMinusSCEV(SE.getSCEV(P), Start0))));
    if (starts.empty())
      return no("no induction variable carried into the epilogue");
    auto sameWrite = [&](Instruction &J, const SCEV *Want) -> bool {
      auto Acc = accessLike(J, I, Size);
      auto OJ = Acc && Acc->second == Size ? objectOffset(Acc->first, true) : std::nullopt;
      return OJ && OJ->first == OrigBase && SE.getMinusSCEV(OJ->second, Want)->isZero();
    };
    if (k == 2) {
      for (BasicBlock *B : Sh->epil)
        for (Instruction &J : *B)
          for (const SCEV *W : starts)
            if (sameWrite(J, W))
              return DaoUnrolled{s, Sh->XS, Base, Sh->anchor};
      return no("no copy in the epilogue");
    }
    // k > 2: a copy {start, +, s}<LE> in every iteration of the epilogue loop
    Loop *LE = Sh->LE;
    for (BasicBlock *BB2 : LE->blocks()) {
      if (!DT.dominates(BB2, LE->getLoopLatch()))
        continue;
      for (Instruction &J : *BB2)
        for (const SCEV *W : starts)
          if (sameWrite(J, SE.getAddRecExpr(W, SE.getConstant(W->getType(), s), LE, SCEV::FlagAnyWrap)))
            return DaoUnrolled{s, Sh->XS, Base, Sh->anchor};
    }
    return no("no copy in the epilogue loop");
  };
  // A vectorised loop and its scalar remainder as one loop for a write
  // (issue #33: NPB SP's `lhs`, `blocked_rows`' output at -O2): store I in
  // every iteration of the scalar loop L, at base + s*(P - iv0) + s*i for
  // the resume value P the middle block or the runtime checks give it
  // (`vectorShape`: iv0 + NV after the vector loop, iv0 when it is
  // skipped), and stores in every iteration t of the vector loop that
  // cover the k cells base + s*(k*t + j), j < k, of I's size. On every
  // path the X iterations of the original loop each write their cell:
  // the vector loop the first NV (a multiple of k, lanes 0 .. NV-1), the
  // scalar loop the rest (vectorShape checks that it ends at X - 1), or
  // all X when the checks skip the vector loop. L, its vector loop and
  // the blocks between them as one loop of X iterations, stride s.
  auto vectorCover = [&](Instruction &I, Loop *L, const SCEV *Off, uint64_t Size, Value *OrigBase) -> std::optional<DaoUnrolled> {
    auto no = [&](const char *why) -> std::optional<DaoUnrolled> {
      if (debugLoops())
        errs() << "dao-debug: write of " << OrigBase->getName() << " in loop " << LoopIx[L] << ": not a vectorised loop's cover: " << why << "\n";
      return std::nullopt;
    };
    auto [VB, Sh] = shapeOfEpilogue(I.getParent());
    if (!VB || !Sh || !Sh->vec || Sh->LE != L || (Sh->kLE != 1 && Sh->kLE != 2) || Sh->prolOnly || !L->getLoopLatch() || !VB->getLoopLatch())
      return std::nullopt;
    if (!DT.dominates(I.getParent(), L->getLoopLatch()))
      return no("not in every iteration of the scalar loop");
    auto *AR = dyn_cast<SCEVAddRecExpr>(Off);
    auto *St = AR && AR->getLoop() == L && AR->isAffine() ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
    if (!St || St->getAPInt().getSignificantBits() > 40 || !St->getAPInt().isStrictlyPositive())
      return no("no positive constant stride in the scalar loop");
    // the scalar loop unrolled in the prologue form (`prologueForm`, issue
    // #33: the scalar copy of a loop the vectoriser versioned for two
    // pointers that may overlap): its iterations step by 2, I the first of
    // the two copies, the second one cell on, and a copy in the prologue
    // block at the loop's resume value: then every cell from there to X
    // is written (the prologue's when it runs, the unrolled loop's from
    // `unr` on, which it leaves exactly at the end)
    int64_t kle = Sh->kLE;
    if (St->getAPInt().getSExtValue() % kle)
      return no("a stride in the unrolled scalar loop that is not the copies'");
    int64_t s = St->getAPInt().getSExtValue() / kle, k = Sh->k;
    const SCEV *Base = nullptr;
    for (auto &[P, Iv0] : Sh->ivs) {
      if (P->getType() != Off->getType())
        continue;
      const SCEV *PS = SE.getSCEV(P);
      const SCEV *B = SE.getMinusSCEV(AR->getStart(), SE.getMulExpr(SE.getConstant(P->getType(), s), SE.getMinusSCEV(PS, Iv0)));
      if (!SCEVExprContains(B, [&](const SCEV *X) { return X == PS; }) && SE.isLoopInvariant(B, VB) && SE.isLoopInvariant(B, L)) {
        Base = B;
        break;
      }
    }
    if (!Base)
      return no("the scalar loop's start is not base + s*(P - iv0)");
    // the vector loop's stores to the object, relative to Base at t = 0
    std::vector<std::pair<int64_t, int64_t>> got;
    for (BasicBlock *B : VB->blocks()) {
      if (!DT.dominates(B, VB->getLoopLatch()))
        continue;
      for (Instruction &J : *B) {
        auto Acc = storeAccess(J);
        auto OJ = Acc ? objectOffset(Acc->first, true) : std::nullopt;
        if (!OJ || OJ->first != OrigBase)
          continue;
        auto *AJ = dyn_cast<SCEVAddRecExpr>(OJ->second);
        auto *SJ = AJ && AJ->getLoop() == VB && AJ->isAffine() ? dyn_cast<SCEVConstant>(AJ->getStepRecurrence(SE)) : nullptr;
        if (!SJ || SJ->getAPInt().getSignificantBits() > 48 || SJ->getAPInt().getSExtValue() != k * s)
          continue;
        auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(AJ->getStart(), Base));
        if (!D || D->getAPInt().getSignificantBits() > 40)
          continue;
        int64_t d = D->getAPInt().getSExtValue();
        got.push_back({d, d + (int64_t)Acc->second});
      }
    }
    std::sort(got.begin(), got.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (auto &G : got)
      if (!merged.empty() && G.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, G.second);
      else
        merged.push_back(G);
    for (int64_t j = 0; j < k; ++j) {
      int64_t a = j * s, z = a + (int64_t)Size;
      if (std::none_of(merged.begin(), merged.end(), [&](const std::pair<int64_t, int64_t> &M) { return M.first <= a && z <= M.second; }))
        return no("the vector loop does not write every lane's cell");
    }
    if (kle == 2) {
      // (Sh->ivs: (P, iv0) then (unr, iv0); Base came from the one that
      // gives a start without P: unr's, in the unrolled loop)
      auto sameWrite = [&](Instruction &J, const SCEV *Want) -> bool {
        auto Acc = accessLike(J, I, Size);
        auto OJ = Acc && Acc->second == Size ? objectOffset(Acc->first, true) : std::nullopt;
        return OJ && OJ->first == OrigBase && SE.getMinusSCEV(OJ->second, Want)->isZero();
      };
      const SCEV *Second = SE.getAddRecExpr(SE.getAddExpr(AR->getStart(), SE.getConstant(AR->getType(), s)), AR->getStepRecurrence(SE), L, SCEV::FlagAnyWrap);
      bool second = false;
      for (BasicBlock *B : L->blocks())
        if (DT.dominates(B, L->getLoopLatch()))
          for (Instruction &J : *B)
            second = second || (&J != &I && sameWrite(J, Second));
      if (!second)
        return no("no second copy in the unrolled scalar loop");
      bool prol = false;
      if (Sh->epil.size() == 1 && Sh->ivs.size() >= 1)
        for (auto &[P, Iv0] : Sh->ivs) {
          if (P->getType() != Off->getType() || P->getParent() == L->getHeader())
            continue;
          const SCEV *Want = SE.getAddExpr(Base, SE.getMulExpr(SE.getConstant(P->getType(), s), SE.getMinusSCEV(SE.getSCEV(P), Iv0)));
          for (Instruction &J : *Sh->epil[0])
            prol = prol || sameWrite(J, Want);
        }
      if (!prol)
        return no("no copy in the prologue");
    }
    return DaoUnrolled{s, Sh->XS, Base, Sh->anchor};
  };
  // The offset of an access to global GV in this function (as the reads'
  // boxes below take it), or nothing.
  auto globalOffset = [&](Value *Ptr, Value *GV) -> const SCEV * {
    if (!SE.isSCEVable(Ptr->getType()))
      return nullptr;
    const SCEV *P = SE.getSCEV(Ptr), *B = SE.getSCEV(GV);
    if (SE.getPointerBase(P) != B)
      return nullptr;
    const SCEV *Off = SE.getMinusSCEV(P, B);
    return isa<SCEVCouldNotCompute>(Off) ? nullptr : DaoExtDistributor(SE).visit(Off);
  };
  // A read of GV at offset O in block BB of a runtime-unrolled loop's
  // pieces (or a vectorised loop's, `vectorShape`: the vector loop as L,
  // the scalar loop as the epilogue loop), taken as one dimension of the
  // loop's X iterations: whichever piece it is in, it reads base + s*m
  // for an m < X.
  //   - in the main loop L, copy j of an original read: {base + s*j, +,
  //     k*s}<L> for t < (X & -k)/k iterations, so base + s*(j + k*t) with
  //     j + k*t <= (X & -k) - 1 < X, for any j < k; j comes from a copy of
  //     the same read in the epilogue (its base), so that the box is the
  //     original read's range, never wider;
  //   - in the epilogue, base + s*(iv.unr - iv0) (+ s*e, e < X & (k-1), in
  //     the epilogue loop): it runs only when X & (k-1) != 0, so iv.unr -
  //     iv0 = X & -k <= X - 1 and the sum stays below X.
  // Adds that dimension to R, sets O to base, and gives the loop to go on
  // peeling (L's parent) with the block that runs the whole in each of
  // its iterations (G or L's preheader).
  auto peelUnrolled = [&](const SCEV *&O, BasicBlock *BB, Value *GV, DaoRead &R) -> std::optional<std::pair<Loop *, BasicBlock *>> {
    if (R.ndims == 8 || !O->getType()->isIntegerTy())
      return std::nullopt;
    Loop *L = LI.getLoopFor(BB), *Main = nullptr;
    std::optional<DaoUnrollShape> Sh;
    if (L && L->isInnermost() && ((Sh = unrollShape(L)) || (Sh = vectorShape(L))))
      Main = L;
    else
      std::tie(Main, Sh) = shapeOfEpilogue(BB);
    if (!Sh)
      return std::nullopt;
    int64_t k = Sh->k;
    auto dbg = [&](const char *why) -> std::optional<std::pair<Loop *, BasicBlock *>> {
      if (debugLoops())
        errs() << "dao-debug: read of " << GV->getName() << " in runtime-unrolled loop " << LoopIx[Main] << ": " << why << ": " << *O << "\n";
      return std::nullopt;
    };
    // base of an epilogue access at offset Or: Or - s*(iv.unr - iv0), for
    // one of the carried induction variables, free of it
    auto epilBase = [&](const SCEV *Or, int64_t s) -> const SCEV * {
      for (auto &[P, Start0] : Sh->ivs) {
        if (P->getType() != Or->getType())
          continue;
        const SCEV *PS = SE.getSCEV(P);
        const SCEV *Bs = SE.getMinusSCEV(Or, SE.getMulExpr(SE.getConstant(Or->getType(), s, true), SE.getMinusSCEV(PS, Start0)));
        if (!SCEVExprContains(Bs, [&](const SCEV *X) { return X == PS; }))
          return Bs;
      }
      return nullptr;
    };
    // the stride of an epilogue access at Or: what one more of iv.unr adds
    auto epilStride = [&](const SCEV *Or) -> int64_t {
      for (auto &[P, Start0] : Sh->ivs) {
        if (P->getType() != Or->getType())
          continue;
        ValueToSCEVMapTy Map;
        Map[P] = SE.getAddExpr(SE.getSCEV(P), SE.getOne(P->getType()));
        auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(SCEVParameterRewriter::rewrite(Or, SE, Map), Or));
        if (D && !D->getAPInt().isZero() && D->getAPInt().getSignificantBits() <= 48)
          return D->getAPInt().getSExtValue();
      }
      return 0;
    };
    // an epilogue access's offset without the epilogue loop's recurrence
    // (step s), or nothing
    auto epilStart = [&](const SCEV *Oe, int64_t s) -> const SCEV * {
      if (Sh->LE)
        if (auto *AR = dyn_cast<SCEVAddRecExpr>(Oe); AR && AR->getLoop() == Sh->LE)
          return AR->isAffine() && AR->getStepRecurrence(SE) == SE.getConstant(Oe->getType(), s * Sh->kLE, true) ? AR->getStart() : nullptr;
      return Oe;
    };
    int64_t s = 0;
    const SCEV *Base = nullptr;
    if (Main == L && !Sh->prolOnly) {
      auto *AR = dyn_cast<SCEVAddRecExpr>(O);
      if (!AR || AR->getLoop() != L)
        return std::nullopt; // invariant in L: the usual peeling
      auto *St = AR->isAffine() ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
      if (!St || St->getAPInt().getSignificantBits() > 48 || St->getAPInt().getSExtValue() % k || St->getAPInt().isZero())
        return dbg("not a copy of the loop's step");
      s = St->getAPInt().getSExtValue() / k;
      // the twin in the epilogue
      // (with the prologue before an unrolled LE: the prologue's block too)
      std::vector<BasicBlock *> EB = Sh->epil;
      if (Sh->LE && Sh->kLE == 1)
        EB.clear();
      if (Sh->LE)
        EB.insert(EB.end(), Sh->LE->block_begin(), Sh->LE->block_end());
      for (BasicBlock *B2 : EB)
        for (Instruction &J : *B2) {
          auto Acc = Base ? std::nullopt : readAccess(J);
          if (!Acc || getUnderlyingObject(Acc->first, 0) != GV)
            continue;
          const SCEV *Oe = globalOffset(Acc->first, GV);
          const SCEV *Or = Oe && Oe->getType() == O->getType() ? epilStart(Oe, s) : nullptr;
          const SCEV *Bs = Or ? epilBase(Or, s) : nullptr;
          auto *D = Bs ? dyn_cast<SCEVConstant>(SE.getMinusSCEV(AR->getStart(), Bs)) : nullptr;
          if (!D || D->getAPInt().getSignificantBits() > 48)
            continue;
          // j: the copy this read is, from where it lies against the
          // twin (in the twin's cell j, or in its bytes there when the
          // epilogue reads fields together); any j < k is sound
          int64_t d = D->getAPInt().getSExtValue();
          int64_t j = s > 0 ? (d >= 0 ? d / s : -1) : (d % s == 0 ? d / s : -1);
          if (j >= 0 && j < k) {
            Base = SE.getMinusSCEV(AR->getStart(), SE.getConstant(O->getType(), s * j, true));
            // a load over copies j to k-1 (an interleaved group, or SLP's
            // pair of copies): each iteration's bytes lie in cells j + k*t
            // to k*(t+1) - 1 < X, whole cells of the box
            if (s > 0 && R.size > (uint64_t)s && R.size <= (uint64_t)((k - j) * s))
              R.size = s;
          }
        }
      if (!Base)
        return dbg("no copy of the read in the epilogue");
    } else {
      if (!SCEVExprContains(O, [&](const SCEV *X) {
            for (auto &IV : Sh->ivs)
              if (X == SE.getSCEV(IV.first))
                return true;
            return false;
          }))
        return std::nullopt; // the same bytes whatever the epilogue's iteration
      const SCEV *O0 = O;
      if (auto *AR = dyn_cast<SCEVAddRecExpr>(O); AR && Sh->LE && AR->getLoop() == Sh->LE)
        O0 = AR->getStart();
      s = epilStride(O0);
      const SCEV *Or = s ? epilStart(O, s) : nullptr;
      Base = Or ? epilBase(Or, s) : nullptr;
      if (!Base)
        return dbg("not base + s*(iv.unr - iv0)");
    }
    // the dimension: X iterations, a constant or a bound load's
    unsigned d = R.ndims;
    if (auto *TC = dyn_cast<SCEVConstant>(Sh->XS); TC && TC->getAPInt().getActiveBits() <= 40) {
      R.count[d] = TC->getAPInt().getZExtValue();
    } else {
      DaoSym u;
      int64_t floor;
      if (!symMayBTC(Main, u, floor, SE.getMinusSCEV(Sh->XS, SE.getOne(Sh->XS->getType()))))
        return dbg("no bound for X");
      u.add += 1;
      R.count[d] = 0;
      R.sym[d] = u;
      R.floor[d] = floor == INT64_MIN ? 0 : std::max<int64_t>(floor + 1, 0);
      R.symMask |= 1u << d;
    }
    R.stride[d] = s;
    R.ndims++;
    O = Base;
    if (debugLoops())
      errs() << "dao-debug: read of " << GV->getName() << " in " << (Sh->vec ? "vectorised" : "runtime-unrolled") << " loop " << LoopIx[Main] << " taken whole, stride " << s << ", count " << *Sh->XS << ", base " << *Base << "\n";
    return std::make_pair(Main->getParentLoop(), Sh->anchor);
  };
  // Heap objects' stand-ins (issue #33, heap.rs): globals of the scratch
  // module, not of this function's. A nest flattened into one run of
  // cells (`a[i * n + j]` for j < n: the outer step n cells of the inner
  // dim's stride) is taken for them as one dim whose count is the inner
  // count times the outer one (DaoSym's second factor): the cover check
  // of a heap block needs no more, and no other user of the sections sees
  // such a dim.
  auto standIn = [&](Value *V) {
    auto *G = dyn_cast<GlobalVariable>(V);
    return G && G->getParent() != F->getParent();
  };
  // A == B, or the same multiple of one value's zero and sign extensions
  // (equal for a value at least 0, which the cover condition asks of the
  // inner count, at least 1)
  auto sameUpToExt = [&](const SCEV *A, const SCEV *B) -> bool {
    if (A == B)
      return true;
    auto strip = [](const SCEV *Y) -> const SCEV * {
      if (isa<SCEVZeroExtendExpr>(Y) || isa<SCEVSignExtendExpr>(Y))
        return cast<SCEVCastExpr>(Y)->getOperand(0);
      return Y;
    };
    auto *MA = dyn_cast<SCEVMulExpr>(A), *MB = dyn_cast<SCEVMulExpr>(B);
    if (MA && MB && MA->getNumOperands() == 2 && MB->getNumOperands() == 2 && MA->getOperand(0) == MB->getOperand(0))
      return strip(MA->getOperand(1)) == strip(MB->getOperand(1));
    return false;
  };
  // Fold loop L (its count: `isSym`, `Lsym` or `Lcount`) whose step is
  // `Step` into dim d of S when Step is dim d's stride times its count CS
  // (symbolic, a plain `add + U`).
  auto flattenInto = [&](DaoSection &S, unsigned d, const SCEV *CS, const SCEV *Step, bool isSym, const DaoSym &Lsym, uint64_t Lcount) -> bool {
    if (!CS || !(S.symMask >> d & 1) || !Step->getType()->isIntegerTy())
      return false;
    DaoSym &Y = S.sym[d];
    if (Y.G2 || Y.mul != 1 || Y.div != 1 || Y.pre != 0 || S.stride[d] <= 0)
      return false;
    const SCEV *Want = SE.getMulExpr(SE.getConstant(Step->getType(), S.stride[d]), SE.getTruncateOrZeroExtend(CS, Step->getType()));
    if (!sameUpToExt(Want, Step))
      return false;
    if (isSym) {
      if (Lsym.G2 || Lsym.div != 1 || Lsym.pre != 0 || Lsym.mul != 1)
        return false;
      Y.G2 = Lsym.G;
      Y.off2 = Lsym.off;
      Y.bytes2 = Lsym.bytes;
      Y.sgn2 = Lsym.sgn;
      Y.add2 = Lsym.add;
      // (L's dim was to be the next one)
      S.symMask &= ~(1u << S.ndims);
      S.sym[S.ndims] = DaoSym();
    } else {
      if (Lcount == 0 || Lcount > (uint64_t(1) << 30))
        return false;
      Y.mul = Lcount;
    }
    return true;
  };
  // nodes `splitCollapsed` may evaluate in this function (compile time)
  lap(4);
  uint64_t splitBudget = uint64_t(1) << 24;
  SplitCache splitCache;
  for (auto &BB : *C) {
    Loop *L0 = LI.getLoopFor(&BB);
    if (!L0)
      continue;
    for (auto &I : BB) {
      auto Acc = storeAccess(I);
      // (a memset or memcpy of a run-time length: its dimension first)
      std::optional<std::pair<int64_t, DaoSym>> SL;
      if (auto *MI = dyn_cast<MemIntrinsic>(&I); !Acc && MI && !symOf.empty()) {
        int64_t a, fl;
        DaoSym u;
        if (symLen(MI, L0, false, a, u, fl)) {
          Acc = std::make_pair(MI->getDest(), (uint64_t)a);
          SL = std::make_pair(a, u);
        }
      }
      if (!Acc)
        continue;
      Value *Ptr = Acc->first;
      uint64_t Size = Acc->second;
      for (Loop *L = L0; L; L = L->getParentLoop())
        Out->loops[LoopIx[L]].stores++;
      auto OO = objectOffset(Ptr, true);
      if (!OO) {
        if (debugLoops())
          errs() << "dao-debug: store with no object offset: " << I << "\n";
        continue;
      }
      Value *OrigBase = OO->first;
      const SCEV *Off = OO->second;
      DaoSection S{};
      S.base = OrigBase;
      S.size = Size;
      if (SL) {
        S.ndims = 1;
        S.stride[0] = SL->first;
        S.count[0] = 0;
        S.symMask = 1;
        S.sym[0] = SL->second;
        if (debugLoops())
          errs() << "dao-debug: write of " << OrigBase->getName() << ": a run-time length, " << SL->first << " * (" << SL->second.add << " + a bound)\n";
      }
      unsigned d0 = S.ndims; // the dims before the loops'
      // the count of each dim as a SCEV (a flattened nest's merge, below)
      const SCEV *CountS[8] = {};
      BasicBlock *X = &BB; // what must run in every iteration of L
      Loop *Child = nullptr;
      // a runtime-unrolled innermost loop was taken whole: its writes end
      // in the epilogue, after the loop, so the relative writes (whose
      // completion is their child loop's) stop there
      bool unrolled = false;
      for (Loop *L = L0; L && S.ndims < 8; L = L->getParentLoop()) {
        // what one iteration of L writes, relative to the iteration
        // (not with a count `add + floor((U + pre) / div)`: the relative
        // boxes' counts are `add + U`)
        bool divs = std::any_of(S.sym, S.sym + 8, [](const DaoSym &y) { return y.div != 1; });
        if (auto K = S.reqs.empty() && !unrolled && !divs ? relStartS(Off, L) : std::nullopt) {
          DaoRel W{LoopIx[L], OrigBase, &I, 0, Size, K->second, S.ndims, {}, {}, Child, {}, {}, nullptr, 0, {}, {}};
          if (auto *KC = dyn_cast<SCEVConstant>(K->first); KC && KC->getAPInt().getSignificantBits() <= 48)
            W.start = KC->getAPInt().getSExtValue();
          else
            W.startS = K->first;
          std::copy(S.stride, S.stride + 8, W.stride);
          std::copy(S.count, S.count + 8, W.count);
          W.symMask = S.symMask;
          std::copy(S.sym, S.sym + 8, W.sym);
          Out->relWrites.push_back(W);
        }
        uint64_t btc = 0;
        DaoSym sym;
        if (!DT.dominates(X, L->getLoopLatch())) {
          // an inner loop under its own zero-trip guard in L (`if (0 <
          // n)` before `for (i < n)` in every row): it runs in every
          // iteration of L when the bound loads are large enough. Walk up
          // from its entry through blocks with one predecessor, each
          // conditional branch on the way going towards it under such a
          // requirement, to a block that runs in every iteration of L.
          BasicBlock *Cur = Child && !symOf.empty() ? Child->getHeader() : nullptr;
          BasicBlock *Y = Child && !symOf.empty() ? Child->getLoopPredecessor() : nullptr;
          // (a loop taken whole with its remainder, `unrolledCover` or
          // `vectorCover`: from its anchor, the block that runs both; the
          // remainder's preheader has two predecessors)
          if (Cur && X != Child->getHeader()) {
            Cur = X;
            Y = X->getSinglePredecessor();
          }
          std::vector<std::pair<DaoSym, int64_t>> G;
          bool passed = false; // a conditional branch decided on the way
          for (int k = 0; Y && k < 8; ++k) {
            // a sibling loop before it in L's body (lhsx in NPB BT: per
            // row, a loop over the Jacobians, then the loop writing lhs):
            // Cur is reached whenever that loop's entry is, if Cur is its
            // only exit and it terminates (a computable count); go on from
            // its entry
            if (Loop *LY = LI.getLoopFor(Y); LY && LY != L && L->contains(LY)) {
              while (LY->getParentLoop() != L)
                LY = LY->getParentLoop();
              BasicBlock *P = LY->getLoopPredecessor();
              bool only = Cur->getSinglePredecessor() == Y || (Cur == Child->getHeader() && Child->getLoopPredecessor() == Y);
              if (!P || LY->getExitBlock() != Cur || !only || isa<SCEVCouldNotCompute>(btcOf(LY))) {
                Y = nullptr;
                break;
              }
              Cur = LY->getHeader();
              Y = P;
              continue;
            }
            auto *Br = L->contains(Y) ? dyn_cast<BranchInst>(Y->getTerminator()) : nullptr;
            if (!Br) {
              Y = nullptr;
              break;
            }
            if (Br->isConditional()) {
              if (Br->getSuccessor(0) == Br->getSuccessor(1) || !decideAll(Br->getCondition(), Br->getSuccessor(0) == Cur, G, 0)) {
                Y = nullptr;
                break;
              }
              passed = true;
            }
            if (DT.dominates(Y, L->getLoopLatch()))
              break;
            Cur = Y;
            Y = Y->getSinglePredecessor();
          }
          if (!Y || !passed || !DT.dominates(Y, L->getLoopLatch()) || S.reqs.size() + G.size() > 4) {
            if (debugLoops())
              errs() << "dao-debug: write of " << OrigBase->getName() << ": not in every iteration of loop " << LoopIx[L] << " (from " << X->getName() << ", header " << L->getHeader()->getName() << ", latch " << (L->getLoopLatch() ? L->getLoopLatch()->getName() : StringRef("none")) << ")\n";
            break;
          }
          S.reqs.insert(S.reqs.end(), G.begin(), G.end());
          X = Y;
        }
        bool isSym = false;
        if (L == L0 && S.ndims == d0 && S.reqs.empty() && !constBTC(L, btc)) {
          auto Un = unrolledCover(I, L, Off, Size, OrigBase);
          if (!Un)
            Un = vectorCover(I, L, Off, Size, OrigBase);
          if (Un) {
            // L, its remainder and its guard as one loop of Un->trip
            // iterations; no section of its own (the epilogue lies outside
            // L): the loops around it give them
            DaoSym us;
            auto *TC = dyn_cast<SCEVConstant>(Un->trip);
            if (TC && TC->getAPInt().getActiveBits() <= 40) {
              S.count[d0] = TC->getAPInt().getZExtValue();
            } else if (symBTC(L, us, SE.getMinusSCEV(Un->trip, SE.getOne(Un->trip->getType())))) {
              us.add += 1;
              S.count[d0] = 0;
              S.symMask |= 1u << d0;
              S.sym[d0] = us;
            } else {
              if (debugLoops())
                errs() << "dao-debug: write of " << OrigBase->getName() << ": no count for runtime-unrolled loop " << LoopIx[L] << ": " << *Un->trip << "\n";
              break;
            }
            if (debugLoops())
              errs() << "dao-debug: write of " << OrigBase->getName() << ": runtime-unrolled loop " << LoopIx[L] << " taken whole, stride " << Un->stride << ", count " << *Un->trip << "\n";
            S.stride[d0] = Un->stride;
            S.ndims = d0 + 1;
            Off = Un->base;
            unrolled = true;
            Child = L;
            X = Un->anchor;
            // a worksharing loop's pieces at the top of the team view (a
            // vectorised `omp for` over heap blocks, issue #33): no loop
            // around them gives the section, which holds for the whole
            // construct (its kill goes to the static init's block)
            if (!L->getParentLoop() && Out->loops[LoopIx[L]].init)
              if (auto *K = dyn_cast<SCEVConstant>(Off); K && K->getAPInt().getSignificantBits() <= 48) {
                S.start = K->getAPInt().getSExtValue();
                S.loop = LoopIx[L];
                Out->sections.push_back(S);
                Out->loops[LoopIx[L]].sections++;
              }
            continue;
          }
        }
        if (!constBTC(L, btc)) {
          if (!symBTC(L, sym)) {
            if (debugLoops()) {
              errs() << "dao-debug: write of " << OrigBase->getName() << ": no count for loop " << LoopIx[L] << ": " << *btcOf(L) << "\n";
            }
            break;
          }
          isSym = true;
        }
        uint64_t count = DT.dominates(X, L->getExitingBlock()) ? btc + 1 : btc;
        if (isSym) {
          sym.add += DT.dominates(X, L->getExitingBlock()) ? 1 : 0;
          S.symMask |= 1u << S.ndims;
          S.sym[S.ndims] = sym;
          count = 0;
        }
        // L's dimension: (step, count), or two exact ones for a collapsed
        // nest (`iv / D`, `iv % D`) when the count is a constant
        std::vector<std::pair<int64_t, uint64_t>> dims;
        const SCEV *LBtc = btcOf(L);
        const SCEV *LCount = isa<SCEVCouldNotCompute>(LBtc) ? nullptr : DT.dominates(X, L->getExitingBlock()) ? SE.getAddExpr(LBtc, SE.getOne(LBtc->getType())) : LBtc;
        if (auto *AR = dyn_cast<SCEVAddRecExpr>(Off); AR && AR->getLoop() == L) {
          auto *St = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
          if (AR->isAffine() && !St && S.ndims > d0 && standIn(OrigBase) && flattenInto(S, S.ndims - 1, CountS[S.ndims - 1], AR->getStepRecurrence(SE), isSym, sym, count)) {
            // a heap object's flattened nest (`a[i * n + j]`, the inner
            // loop over n cells): L's count folded into the inner dim's
            if (debugLoops())
              errs() << "dao-debug: write of " << OrigBase->getName() << ": loop " << LoopIx[L] << " flattened into the inner dim (stride " << *AR->getStepRecurrence(SE) << ")\n";
            Off = AR->getStart();
          } else {
            if (!AR->isAffine() || !St || St->getAPInt().getSignificantBits() > 48)
              break;
            dims.push_back({St->getAPInt().getSExtValue(), count});
            Off = AR->getStart();
          }
        } else if (SE.isLoopInvariant(Off, L)) {
          dims.push_back({0, count});
        } else {
          auto Sp = isSym || S.ndims + 2 > 8 ? std::nullopt : splitCollapsed(SE, Off, L, count, splitBudget, splitCache);
          if (!Sp)
            break;
          Off = Sp->first;
          dims = Sp->second;
        }
        for (auto [st, n] : dims) {
          S.stride[S.ndims] = st;
          S.count[S.ndims] = n;
          CountS[S.ndims] = dims.size() == 1 ? LCount : nullptr;
          S.ndims++;
        }
        if (auto *K = dyn_cast<SCEVConstant>(Off); K && K->getAPInt().getSignificantBits() <= 48) {
          S.start = K->getAPInt().getSExtValue();
          S.loop = LoopIx[L];
          Out->sections.push_back(S);
          Out->loops[LoopIx[L]].sections++;
        }
        Child = L;
        X = L->getHeader();
      }
    }
  }
  // Guards of loops with symbolic counts: the branches above a loop's
  // anchor (its preheader, or the block of its static init) that lead to
  // it when the bound loads are large enough (`if (0 < n)` around a
  // worksharing loop, the zero-trip test of a rotated loop). Walked up
  // through blocks with one predecessor, while each conditional branch on
  // the way is `a + U pred k` (U a bound load, k a constant) taken towards
  // the loop whenever U is at least some m: a kill under the conditions
  // plus `U >= m` may then sit at the top of that chain.
  // The edges a branch on a bound takes only below some value (jump
  // threading sends `if (n > 0)` of one worksharing loop straight past the
  // next loop's own test of the same bound: NPB BT's compute_rhs).
  if (!symOf.empty())
    for (auto &BB : *C) {
      auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
      auto *IC = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
      if (!IC || Br->getSuccessor(0) == Br->getSuccessor(1) || !DT.isReachableFromEntry(&BB))
        continue;
      for (unsigned s = 0; s < 2; ++s) {
        DaoSym u;
        int64_t m;
        // the other successor (wantTrue for successor 0) whenever U >= m
        if (!decide(IC, s == 1, u, m))
          continue;
        auto F = Back.find(&BB), T = Back.find(Br->getSuccessor(s));
        if (F == Back.end() || T == Back.end())
          continue;
        Out->boundEdges.push_back({cast<BasicBlock>(F->second), cast<BasicBlock>(T->second), u, m});
      }
    }
  lap(5);
  if (!symOf.empty()) {
    for (Loop *L : LI.getLoopsInPreorder()) {
      auto &R = Out->loops[LoopIx[L]];
      BasicBlock *X = nullptr;
      if (R.init) {
        for (auto &KV : initBlock)
          if (KV.second == R.init)
            X = KV.first;
      } else if (BasicBlock *PH = L->getLoopPredecessor(); PH && PH->getSingleSuccessor() == L->getHeader()) {
        X = PH;
      } else {
        X = L->getHeader();
      }
      std::vector<BasicBlock *> chain;
      std::vector<std::pair<DaoSym, int64_t>> reqs;
      BasicBlock *top = nullptr;
      for (int step = 0; X && step < 6; ++step) {
        BasicBlock *P = X->getSinglePredecessor();
        auto *Br = P ? dyn_cast<BranchInst>(P->getTerminator()) : nullptr;
        if (!Br)
          break;
        if (Br->isConditional()) {
          if (Br->getSuccessor(0) == Br->getSuccessor(1) || !decideAll(Br->getCondition(), Br->getSuccessor(0) == X, reqs, 0))
            break;
        }
        if (X != L->getHeader())
          chain.push_back(X);
        X = P;
        top = P;
      }
      if (!reqs.empty() && top) {
        R.guardTop = cast<BasicBlock>(Back[top]);
        for (auto *B : chain)
          R.guardChain.push_back(cast<BasicBlock>(Back[B]));
        R.guardReqs = reqs;
      }
    }
  }
  // A read's remaining start c + a*V, V the plane `U + d` (U a bound load,
  // d < 0 a constant; `sext (d + U)`, `zext (d + U)`, `zext U`): the planes 0
  // to V as one more dimension, stride a, count U + d + 1 while U >= -d
  // (`low`: a condition of every kill that uses the box, for below it the
  // read is at a plane the box does not hold), and O becomes c. A box
  // wider than the read (all planes up to V), never narrower.
  // The box begins at plane p >= 1, not 0, under the condition V >= p
  // (`low`: U >= p - d; below it the box is not used: a kill is not made,
  // and the runtime takes every byte as readable): plane 0 is the near
  // face, which a read at the far one V does not touch. p is 1, or, when
  // the start came from a phi (below), the lowest plane p > 1 among the
  // other cases' constant starts that lies on this read's planes
  // (c + a*p): `Others`. NPB BT's `lhs[isize][j][k][AA]` is at plane
  // U - 1: planes 1 to U - 1, face 0's AA (never read) left out.
  auto symStartDim = [&](const SCEV *&O, DaoRead &R, const std::vector<int64_t> &Others) -> bool {
    if (R.ndims == 8)
      return false;
    const SCEV *C = SE.getZero(O->getType()), *T = O;
    if (auto *A = dyn_cast<SCEVAddExpr>(O)) {
      if (A->getNumOperands() != 2 || !isa<SCEVConstant>(A->getOperand(0)))
        return false;
      C = A->getOperand(0);
      T = A->getOperand(1);
    }
    auto *M = dyn_cast<SCEVMulExpr>(T);
    auto *Ka = M && M->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(M->getOperand(0)) : nullptr;
    if (!Ka || Ka->getAPInt().getSignificantBits() > 40 || Ka->getAPInt().isZero() || cast<SCEVConstant>(C)->getAPInt().getSignificantBits() > 48)
      return false;
    const SCEV *V = M->getOperand(1);
    int64_t d = 0, floorV = 0;
    // (U itself only zero-extended: never a negative plane)
    std::optional<DaoSym> U = isa<SCEVZeroExtendExpr>(V) ? boundLoad(V) : std::nullopt;
    if (!U && (isa<SCEVSignExtendExpr>(V) || isa<SCEVZeroExtendExpr>(V)))
      if (auto *A2 = dyn_cast<SCEVAddExpr>(cast<SCEVCastExpr>(V)->getOperand()); A2 && A2->getNumOperands() == 2) {
        auto *Kd = dyn_cast<SCEVConstant>(A2->getOperand(0));
        const SCEV *X = A2->getOperand(1);
        // `smax(c0, U)`: a loop's exit value when it may not have run
        // (`i` after `for (i = 1; i < U - 1; i++)` is max(2, U) - 1)
        int64_t c0 = INT64_MIN;
        if (auto *SM = dyn_cast<SCEVSMaxExpr>(X); SM && SM->getNumOperands() == 2)
          if (auto *K0 = dyn_cast<SCEVConstant>(SM->getOperand(0)); K0 && K0->getAPInt().getSignificantBits() <= 20) {
            c0 = K0->getAPInt().getSExtValue();
            X = SM->getOperand(1);
          }
        auto Bd = boundLoad(X);
        // d + U in U's own width: no wrap for 0 <= d + U, d < 0
        if (Kd && Kd->getAPInt().getSignificantBits() <= 20 && Kd->getAPInt().isNegative() && Bd && 8 * Bd->bytes == A2->getType()->getIntegerBitWidth()) {
          d = Kd->getAPInt().getSExtValue();
          U = Bd;
          // planes 0 to d + max(c0, U): at least c0 + d + 1 of them
          if (c0 != INT64_MIN)
            floorV = std::max<int64_t>(0, c0 + d + 1);
        }
      }
    if (!U)
      return false;
    // a loop down from plane V (`for (i = U + d; i >= 0; i--)`, NPB BT's
    // back substitution): its dim (-a, may-count U + e, no floor) reaches
    // V - a*(U + e - 1) = c + a*(d - e + 1) at most, so it becomes the dim
    // (a, U + e) from there: the same planes, never fewer (the count is a
    // may-count), and none below the lowest the loop can reach
    int64_t a = Ka->getAPInt().getSExtValue();
    for (unsigned q = 0; q < R.ndims; ++q)
      if (floorV == 0 && (R.symMask >> q & 1) && R.stride[q] == -a && R.floor[q] == 0 && R.sym[q].G == U->G && R.sym[q].off == U->off && R.sym[q].bytes == U->bytes &&
          R.sym[q].sgn == U->sgn && std::abs(R.sym[q].add) < (1 << 20)) {
        int64_t e = R.sym[q].add;
        R.stride[q] = a;
        O = SE.getAddExpr(C, SE.getConstant(O->getType(), a * (d - e + 1), true));
        if (debugLoops())
          errs() << "dao-debug: read start at a bound's plane, a loop down from it: stride " << a << ", from plane " << (d - e + 1) << "\n";
        return true;
      }
    int64_t c = cast<SCEVConstant>(C)->getAPInt().getSExtValue(), p0 = 0;
    for (int64_t K : Others)
      if ((K - c) % a == 0 && (K - c) / a > 0 && (K - c) / a < (1 << 20) && (p0 == 0 || (K - c) / a < p0))
        p0 = (K - c) / a;
    if (p0 == 0)
      p0 = 1;
    U->add = d + 1 - p0;
    U->low = std::max<int64_t>(U->low, p0 - d);
    R.stride[R.ndims] = a;
    R.count[R.ndims] = 0;
    R.sym[R.ndims] = *U;
    R.floor[R.ndims] = std::max<int64_t>(0, floorV - p0);
    R.symMask |= 1u << R.ndims;
    R.ndims++;
    O = SE.getAddExpr(C, SE.getConstant(O->getType(), a * p0, true));
    if (debugLoops())
      errs() << "dao-debug: read start at a bound's plane: stride " << R.stride[R.ndims - 1] << ", planes " << p0 << " up to U + " << d << "\n";
    return true;
  };
  // The bytes of globals this function may read: every load and memory
  // transfer source whose underlying object is a global. Inside loops, a
  // box like a store's but with may-counts (the constant maximum trip
  // count, no dominance needed: over-approximated); else the range of its
  // offset; whole when neither is known. The team view's whole iteration
  // space covers every thread's chunk. Blocks the clone cannot reach are
  // left out: the vector loops `foldVectorChecks` cut off, whose accesses
  // the scalar copy makes too (with their resume phis gone, their
  // addresses are poison to ScalarEvolution: every byte, before).
  // The box of a read of Size bytes at offset Off from Base (a global or
  // a pointer parameter) in block BB: R's dims, start and size, or R left
  // whole.
  // A start through a phi of at most four incoming values that are not
  // recurrences (a loop's exit value: `i` after `for (i = 1; i < isize;
  // i++)`, 1 when the loop never ran, NPB BT's `binvrhs(.., rhs[i][j][k])`
  // after its forward elimination): the start with each incoming value in
  // its place; nothing when there is no such phi.
  auto phiCases = [&](const SCEV *O) -> std::vector<const SCEV *> {
    const SCEVUnknown *PU = nullptr;
    SCEVExprContains(O, [&](const SCEV *S) {
      if (auto *U = dyn_cast<SCEVUnknown>(S); U && !PU && isa<PHINode>(U->getValue()))
        PU = U;
      return false;
    });
    auto *P = PU ? cast<PHINode>(PU->getValue()) : nullptr;
    if (!P || P->getNumIncomingValues() > 4 || !SE.isSCEVable(P->getType()))
      return {};
    std::vector<const SCEV *> out;
    for (Value *V : P->incoming_values()) {
      if (V == P)
        return {};
      const SCEV *S = SE.getSCEV(V);
      if (S->getType() != PU->getType() || SCEVExprContains(S, [&](const SCEV *X) { return isa<SCEVAddRecExpr>(X) || X == PU; }))
        return {};
      ValueToSCEVMapTy Map;
      Map[P] = S;
      out.push_back(SCEVParameterRewriter::rewrite(O, SE, Map));
    }
    return out;
  };
  auto boxRead = [&](const SCEV *Off, BasicBlock &BB, Value *Base, uint64_t Size, DaoRead &R, std::vector<DaoRead> &Extra) {
      // a box over the enclosing loops
      const SCEV *O = Off;
      bool ok = true;
      BasicBlock *X = &BB;
      Loop *L = LI.getLoopFor(&BB);
      // a runtime-unrolled loop's pieces: one dimension, then its parent
      if (auto U = peelUnrolled(O, &BB, Base, R)) {
        L = U->first;
        X = U->second;
      }
      for (; L && ok; L = L->getParentLoop()) {
        // a bound from a stable global rather than the type's range
        // (`i < grid_points[0]`: at most 2^31 by the type alone)
        auto *MaxK = dyn_cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L));
        bool wide = !MaxK || MaxK->getAPInt().getActiveBits() > 20;
        if (!(wide && (peelMaySym(O, L, X, R) || peelSpan(O, L, X, R))) && !peelMay(O, L, X, R) && !peelSpan(O, L, X, R)) {
          ok = false;
          break;
        }
        X = L->getHeader();
      }
      // a start at a plane given by a bound (`u[grid_points[0]-3][j][k]`,
      // NPB BT's and SP's dissipation at the far boundary)
      if (ok && !isa<SCEVConstant>(O)) {
        DaoRead R0 = R;
        if (!symStartDim(O, R, {})) {
          // one box per incoming value of a phi in the start
          std::vector<DaoRead> Cases;
          auto Starts = phiCases(O);
          std::vector<int64_t> Consts;
          for (const SCEV *Oi : Starts)
            if (auto *Ki = dyn_cast<SCEVConstant>(Oi); Ki && Ki->getAPInt().getSignificantBits() <= 48)
              Consts.push_back(Ki->getAPInt().getSExtValue());
          for (const SCEV *Oi : Starts) {
            DaoRead Ri = R0;
            if (!isa<SCEVConstant>(Oi))
              symStartDim(Oi, Ri, Consts);
            auto *Ki = dyn_cast<SCEVConstant>(Oi);
            if (!Ki || Ki->getAPInt().getSignificantBits() > 48) {
              Cases.clear();
              break;
            }
            Ri.whole = false;
            Ri.start = Ki->getAPInt().getSExtValue();
            Cases.push_back(Ri);
          }
          if (!Cases.empty()) {
            if (debugLoops())
              errs() << "dao-debug: read of " << Base->getName() << " at a phi's " << Cases.size() << " values: " << *O << "\n";
            R = Cases[0];
            Extra.insert(Extra.end(), Cases.begin() + 1, Cases.end());
            return;
          }
        }
      }
      auto *K = dyn_cast<SCEVConstant>(O);
      if (ok && K && K->getAPInt().getSignificantBits() <= 48) {
        R.whole = false;
        R.start = K->getAPInt().getSExtValue();
      } else {
        if (debugLoops())
          errs() << "dao-debug: whole read of " << Base->getName() << ": " << *Off << " (left " << *O << ", ok " << ok << ")\n";
        R.ndims = 0;
        R.symMask = 0;
        ConstantRange CR = SE.getSignedRange(Off);
        if (!CR.isFullSet() && !CR.isSignWrappedSet() && CR.getSignedMin().getSignificantBits() <= 48 && CR.getSignedMax().getSignificantBits() <= 48) {
          R.whole = false;
          R.start = CR.getSignedMin().getSExtValue();
          R.size = (CR.getSignedMax() - CR.getSignedMin()).getZExtValue() + Size;
        }
      }
  };
  lap(6);
  for (auto &BB : *C) {
    if (!DT.isReachableFromEntry(&BB) || writesOnly)
      continue;
    for (auto &I : BB) {
      // a call passing pointers into a global or through a parameter to a
      // defined function: what that function reads through them is read
      // here (composed on the Rust side, `facts.rs` `set_readable`)
      if (auto *CB = dyn_cast<CallInst>(&I); CB && !isa<IntrinsicInst>(CB)) {
        // (as the Rust side's `provenance::reads_seen` takes a call: the
        // called operand itself a defined function, as many arguments as
        // parameters)
        auto *Callee = dyn_cast<Function>(CB->getCalledOperand());
        if (!Callee || Callee->isDeclaration() || CB->arg_size() != Callee->arg_size())
          continue;
        for (unsigned k = 0; k < CB->arg_size(); ++k) {
          Value *Arg = CB->getArgOperand(k);
          if (!Arg->getType()->isPointerTy())
            continue;
          Value *U = getUnderlyingObject(Arg, 0);
          auto *GV = dyn_cast<GlobalVariable>(U);
          auto *A = dyn_cast<Argument>(U);
          if (!GV && !A)
            continue;
          DaoRead R{};
          R.global = GV;
          R.param = A ? (int)A->getArgNo() : -1;
          R.callee = Callee;
          R.calleeArg = k;
          R.whole = true;
          R.size = 1;
          // a copy the call makes (byval): the callee reads its own
          // copy, the call the whole pointee; left whole
          bool copied = CB->isByValArgument(k) || CB->paramHasAttr(k, Attribute::InAlloca) || CB->paramHasAttr(k, Attribute::Preallocated);
          std::vector<DaoRead> Extra;
          if (const SCEV *Off = copied ? nullptr : globalOffset(Arg, U))
            boxRead(Off, BB, U, 1, R, Extra);
          Out->argReads.push_back(R);
          Out->argReads.insert(Out->argReads.end(), Extra.begin(), Extra.end());
        }
        continue;
      }
      auto Acc = readAccess(I);
      if (!Acc)
        continue;
      Value *Ptr = Acc->first;
      uint64_t Size = Acc->second;
      Value *U = getUnderlyingObject(Ptr, 0);
      auto *GV = dyn_cast<GlobalVariable>(U);
      auto *A = dyn_cast<Argument>(U);
      if (!GV && !(A && A->getType()->isPointerTy()))
        continue;
      DaoRead R{};
      R.global = GV;
      R.param = A ? (int)A->getArgNo() : -1;
      if (auto BI = Back.find(&I); BI != Back.end())
        R.inst = dyn_cast<Instruction>(BI->second);
      R.whole = true;
      R.size = Size;
      // a memcpy of a run-time length: its dimension first (a may-count)
      int64_t symA = 0;
      if (auto *MT = dyn_cast<MemTransferInst>(&I); MT && Size == UINT64_MAX && !symOf.empty()) {
        int64_t fl;
        DaoSym u;
        if (symLen(MT, LI.getLoopFor(&BB), true, symA, u, fl)) {
          Size = symA;
          R.size = Size;
          R.ndims = 1;
          R.stride[0] = symA;
          R.count[0] = 0;
          R.symMask = 1;
          R.sym[0] = u;
          R.floor[0] = fl == INT64_MIN ? 0 : std::max<int64_t>(fl + 1, 0);
        } else {
          symA = 0;
        }
      }
      const SCEV *Off = Size < (1ull << 40) ? globalOffset(Ptr, U) : nullptr;
      if (!Off && GV && debugLoops())
      {
        errs() << "dao-debug: read of " << GV->getName() << " with no offset: " << I << " ptr " << *Ptr << " = " << *SE.getSCEV(Ptr) << " base " << *SE.getPointerBase(SE.getSCEV(Ptr)) << "\n";
        if (auto *GEP = dyn_cast<GetElementPtrInst>(Ptr))
          for (Value *Ix : GEP->indices())
            if (auto *II = dyn_cast<Instruction>(Ix)) {
              errs() << "dao-debug:    index " << *II << " = " << *SE.getSCEV(II) << "\n";
              for (Value *Op : II->operands())
                if (auto *OI = dyn_cast<Instruction>(Op))
                  errs() << "dao-debug:       op " << *OI << "\n";
            }
      }
      std::vector<DaoRead> Extra;
      if (Off)
        boxRead(Off, BB, U, Size, R, Extra);
      // (the length's dimension kept, or the read is whole: a box of its
      // first element would be too small)
      if (symA) {
        auto kept = [&](const DaoRead &X) { return !X.whole && X.ndims >= 1 && (X.symMask & 1) && X.stride[0] == symA; };
        bool all = kept(R);
        for (auto &X : Extra)
          all = all && kept(X);
        if (!all) {
          R.whole = true;
          R.ndims = 0;
          R.symMask = 0;
          R.size = UINT64_MAX;
          Extra.clear();
        }
      }
      auto &To = GV ? Out->reads : Out->argReads;
      To.push_back(R);
      To.insert(To.end(), Extra.begin(), Extra.end());
    }
  }
  // Reads relative to each loop around them, for the reads-after-writes of
  // one iteration: loads and memory-transfer sources of an object some
  // write of the same loop has a relative box for.
  lap(7);
  if (debugLoops())
    for (auto &W : Out->relWrites)
      errs() << "dao-debug: rel write of " << W.base->getName() << " in loop " << W.loop << " step " << W.step << " dims " << W.ndims << " sym " << W.symMask << " start " << (W.startS ? *W.startS : *SE.getConstant(APInt(64, W.start, true))) << "\n";
  if (writesOnly)
    Out->relWrites.clear();
  // the first run: a loop whose stores did not all give sections, with a
  // branch to a dead end (`exit` in an inlined error check)
  if (!writesOnly)
    for (Loop *L : LI.getLoopsInPreorder()) {
      auto &R = Out->loops[LoopIx[L]];
      if (R.stores == 0 || R.sections >= R.stores)
        continue;
      for (BasicBlock *B : L->blocks()) {
        if (auto *Br = dyn_cast<BranchInst>(B->getTerminator()); Br && Br->isConditional() && deadEnd(Br->getSuccessor(0)) != deadEnd(Br->getSuccessor(1)))
          Out->deadEnds = true;
        if (isa<SwitchInst>(B->getTerminator())) {
          bool dead = false, live = false;
          for (BasicBlock *S : successors(B))
            (deadEnd(S) ? dead : live) = true;
          Out->deadEnds |= dead && live;
        }
      }
    }
  if (!Out->relWrites.empty()) {
    // the writes per (loop, object), in their order
    std::map<std::pair<unsigned, Value *>, std::vector<unsigned>> writesOf;
    for (unsigned w = 0; w < Out->relWrites.size(); ++w)
      writesOf[{Out->relWrites[w].loop, Out->relWrites[w].base}].push_back(w);
    for (auto &BB : *C) {
      Loop *L0 = LI.getLoopFor(&BB);
      if (!L0)
        continue;
      for (auto &I : BB) {
        auto Acc = readAccess(I);
        if (!Acc || Acc->second >= (1ull << 40))
          continue;
        Value *Ptr = Acc->first;
        uint64_t Size = Acc->second;
        auto OO = objectOffset(Ptr, false);
        if (!OO)
          continue;
        Value *OrigBase = OO->first;
        const SCEV *O = OO->second;
        auto BackI = Back.find(&I);
        if (BackI == Back.end())
          continue;
        // (only a loop around the read that writes its object can give
        // it a frame: without one, peeling the loops finds nothing)
        bool framed = false;
        for (Loop *L = L0; L && !framed; L = L->getParentLoop())
          framed = writesOf.count({LoopIx[L], OrigBase});
        if (!framed)
          continue;
        DaoRel R{0, OrigBase, &I, 0, Size, 0, 0, {}, {}, nullptr, {}, {}, nullptr, 0, {}, {}};
        BasicBlock *X = &BB;
        for (Loop *L = L0; L; L = L->getParentLoop()) {
          auto WO = writesOf.find({LoopIx[L], OrigBase});
          if (WO != writesOf.end())
            if (auto K = relStartS(O, L)) {
              DaoRel Rl = R;
              Rl.loop = LoopIx[L];
              Rl.step = K->second;
              // the frame: the first write's start; the others' and the
              // read's must differ from it by constants
              const SCEV *Frame = nullptr;
              for (unsigned w : WO->second) {
                auto &W = Out->relWrites[w];
                if (W.step != Rl.step)
                  continue;
                bool after = W.child ? !W.child->contains(&BB) && DT.dominates(W.child->getExitingBlock(), &BB)
                                     : DT.dominates(W.inst, &I);
                if (!after)
                  continue;
                const SCEV *WS = W.startS ? W.startS : SE.getConstant(K->first->getType(), W.start, true);
                if (WS->getType() != K->first->getType())
                  continue;
                if (!Frame)
                  Frame = WS;
                auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(WS, Frame));
                if (!D || D->getAPInt().getSignificantBits() > 48)
                  continue;
                Rl.writes.push_back(w);
                Rl.wstarts.push_back(D->getAPInt().getSExtValue());
              }
              auto *RD = Frame ? dyn_cast<SCEVConstant>(SE.getMinusSCEV(K->first, Frame)) : nullptr;
              if (debugLoops())
                errs() << "dao-debug: rel read of " << OrigBase->getName() << " in loop " << LoopIx[L] << ": " << *K->first << " frame " << (Frame ? *Frame : *K->first) << " writes " << Rl.writes.size() << " dims " << Rl.ndims << "\n";
              if (!Rl.writes.empty() && RD && RD->getAPInt().getSignificantBits() <= 48) {
                Rl.start = RD->getAPInt().getSExtValue();
                Rl.inst = cast<Instruction>(BackI->second);
                Out->relReads.push_back(Rl);
              }
            }
          // peel L for the loop around it: may-counts (symbolic ones from
          // bound loads, as for the reads' boxes)
          auto *MaxK = dyn_cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L));
          bool wide = !MaxK || MaxK->getAPInt().getActiveBits() > 20;
          if (!(wide && (peelMaySym(O, L, X, R) || peelSpan(O, L, X, R))) && !peelMay(O, L, X, R) && !peelSpan(O, L, X, R)) {
            if (debugLoops())
              errs() << "dao-debug: rel read of " << OrigBase->getName() << " stops at loop " << LoopIx[L] << ": " << *O << "\n";
            break;
          }
          X = L->getHeader();
        }
      }
    }
  }
  // the clone's instructions are gone with it (reads hold originals)
  for (auto &W : Out->relWrites) {
    W.inst = nullptr;
    W.child = nullptr;
  }
  lap(8);
  }
  lap(10);
  C->eraseFromParent();
  lap(9);
  return Out;
}

void *dao_cxx_loop_facts(LLVMValueRef f, LLVMValueRef *initCalls, unsigned nInits, LLVMValueRef *elig, unsigned nElig,
                         LLVMValueRef *writerGlobals, LLVMValueRef *writerFuncs, unsigned nWriters,
                         unsigned *bindArg, int64_t *bindSlot, LLVMValueRef *bindGlobal, unsigned nBind,
                         LLVMValueRef *replFrom, LLVMValueRef *replTo, unsigned nRepl) {
  Function *F = unwrap<Function>(f);
  Repl repl{replFrom, replTo, nRepl};
  DaoLoopFacts *Out = loopFactsRun(F, initCalls, nInits, elig, nElig, writerGlobals, writerFuncs, nWriters, bindArg, bindSlot, bindGlobal, nBind, repl, nullptr);
  // (only where some loop's stores did not all give sections: what the
  // second run could add)
  bool partial = std::any_of(Out->loops.begin(), Out->loops.end(), [](const DaoLoopRec &R) { return R.stores > R.sections; });
  if ((Out->pinCands.empty() && !Out->deadEnds) || !partial)
    return Out;
  // A second, writes-only run (issue #33, NPB FT's `cffts1`: rows written in
  // blocks of `fftblock`, a global set to 16, in a loop with an inlined
  // error check that calls `exit`): its sections of loops the first run
  // has none for (same header, same object) join the first run's, each
  // with the pins as requirements (the global equal to its value).
  std::vector<DaoPin> pins = Out->pinCands;
  if (pins.size() > 2)
    pins.resize(2);
  DaoLoopFacts *W = loopFactsRun(F, initCalls, nInits, elig, nElig, writerGlobals, writerFuncs, nWriters, bindArg, bindSlot, bindGlobal, nBind, repl, &pins);
  std::map<BasicBlock *, unsigned> byHeader;
  for (unsigned i = 0; i < Out->loops.size(); ++i)
    byHeader[Out->loops[i].header] = i;
  std::set<std::pair<unsigned, Value *>> had;
  for (auto &S : Out->sections)
    had.insert({S.loop, S.base});
  unsigned added = 0;
  for (auto S : W->sections) {
    auto It = byHeader.find(W->loops[S.loop].header);
    if (It == byHeader.end() || had.count({It->second, S.base}) || S.reqs.size() + pins.size() > 4)
      continue;
    S.loop = It->second;
    for (auto &P : pins) {
      DaoSym Y;
      Y.G = P.G;
      Y.off = P.off;
      Y.bytes = P.bytes;
      Y.sgn = 1;
      Y.high = P.value;
      S.reqs.push_back({Y, P.value});
    }
    Out->sections.push_back(S);
    ++added;
  }
  if (debugLoops())
    errs() << "dao-debug: writes-only run of " << F->getName() << ": " << added << " sections added under " << pins.size() << " pinned values\n";
  delete W;
  return Out;
}

int dao_cxx_loop_facts_team(void *h) { return static_cast<DaoLoopFacts *>(h)->team; }
unsigned dao_cxx_loop_count(void *h) { return static_cast<DaoLoopFacts *>(h)->loops.size(); }
void dao_cxx_loop_get(void *h, unsigned i, DaoLoopOut *o) {
  auto &R = static_cast<DaoLoopFacts *>(h)->loops[i];
  o->preheader = R.preheader ? wrap(R.preheader) : nullptr;
  o->header = wrap(R.header);
  o->init = R.init ? wrap(R.init) : nullptr;
  o->nblocks = R.blocks.size();
  o->stores = R.stores;
  o->sections = R.sections;
  o->guardTop = R.guardTop ? wrap(R.guardTop) : nullptr;
  o->nguardChain = R.guardChain.size();
  o->nguardReqs = R.guardReqs.size();
}
LLVMBasicBlockRef dao_cxx_loop_guard_block(void *h, unsigned i, unsigned j) { return wrap(static_cast<DaoLoopFacts *>(h)->loops[i].guardChain[j]); }
void dao_cxx_loop_guard_req(void *h, unsigned i, unsigned j, DaoGuardReqOut *o) {
  auto &Q = static_cast<DaoLoopFacts *>(h)->loops[i].guardReqs[j];
  o->global = wrap(static_cast<Value *>(Q.first.G));
  o->off = Q.first.off;
  o->bytes = Q.first.bytes;
  o->sgn = Q.first.sgn;
  o->min = Q.second;
}
unsigned dao_cxx_dropped_count(void *h) { return static_cast<DaoLoopFacts *>(h)->dropped.size(); }
// Dropped block i (an original block, `DaoLoopFacts::dropped`).
LLVMBasicBlockRef dao_cxx_dropped_get(void *h, unsigned i) { return wrap(static_cast<DaoLoopFacts *>(h)->dropped[i]); }
unsigned dao_cxx_bound_edge_count(void *h) { return static_cast<DaoLoopFacts *>(h)->boundEdges.size(); }
// Bound edge i: its blocks, and (in `o`) the bound and the value m below
// which alone the edge is taken.
void dao_cxx_bound_edge_get(void *h, unsigned i, LLVMBasicBlockRef *from, LLVMBasicBlockRef *to, DaoGuardReqOut *o) {
  auto &E = static_cast<DaoLoopFacts *>(h)->boundEdges[i];
  *from = wrap(E.from);
  *to = wrap(E.to);
  o->global = wrap(static_cast<Value *>(E.u.G));
  o->off = E.u.off;
  o->bytes = E.u.bytes;
  o->sgn = E.u.sgn;
  o->min = E.m;
}
LLVMBasicBlockRef dao_cxx_loop_block(void *h, unsigned i, unsigned j) { return wrap(static_cast<DaoLoopFacts *>(h)->loops[i].blocks[j]); }
unsigned dao_cxx_read_count(void *h) { return static_cast<DaoLoopFacts *>(h)->reads.size(); }
// Read i's instruction in the original function (null: not known).
LLVMValueRef dao_cxx_read_inst(void *h, unsigned i) { return wrap(static_cast<DaoLoopFacts *>(h)->reads[i].inst); }
// Read i: its global (in `base`) and its box (loop: 1 when the whole global may be read).
static void readOut(const DaoRead &R, DaoSectionOut *o) {
  o->loop = R.whole ? 1 : 0;
  o->base = wrap(R.global);
  o->start = R.start;
  o->size = R.size;
  o->ndims = R.ndims;
  o->symMask = R.whole ? 0 : R.symMask;
  for (unsigned d = 0; d < 8; ++d) {
    o->stride[d] = R.stride[d];
    o->count[d] = R.count[d];
    bool sy = !R.whole && (R.symMask >> d & 1);
    o->symGlobal[d] = sy ? wrap(static_cast<Value *>(R.sym[d].G)) : nullptr;
    o->symOff[d] = sy ? R.sym[d].off : 0;
    o->symBytes[d] = sy ? R.sym[d].bytes : 0;
    o->symSigned[d] = sy ? R.sym[d].sgn : 0;
    o->symAdd[d] = sy ? R.sym[d].add : 0;
    o->symLow[d] = sy ? R.sym[d].low : 0;
    o->symFloor[d] = sy ? R.floor[d] : 0;
    o->symDiv[d] = 1;
    o->symPre[d] = 0;
  }
  for (unsigned r = 0; r < 4; ++r)
    o->reqMax[r] = INT64_MAX;
}
void dao_cxx_read_get(void *h, unsigned i, DaoSectionOut *o) { readOut(static_cast<DaoLoopFacts *>(h)->reads[i], o); }
// Reads through pointer parameters (`DaoRead::param`, `callee`): their
// count, box (base: the global, or null), and where they come from
// (param: -1 for a global; callee: null for a load or transfer through
// `param`).
unsigned dao_cxx_argread_count(void *h) { return static_cast<DaoLoopFacts *>(h)->argReads.size(); }
void dao_cxx_argread_get(void *h, unsigned i, DaoSectionOut *o) { readOut(static_cast<DaoLoopFacts *>(h)->argReads[i], o); }
void dao_cxx_argread_info(void *h, unsigned i, int *param, LLVMValueRef *callee, unsigned *calleeArg) {
  auto &R = static_cast<DaoLoopFacts *>(h)->argReads[i];
  *param = R.param;
  *callee = R.callee ? wrap(static_cast<Value *>(R.callee)) : nullptr;
  *calleeArg = R.calleeArg;
}
unsigned dao_cxx_section_count(void *h) { return static_cast<DaoLoopFacts *>(h)->sections.size(); }
void dao_cxx_section_get(void *h, unsigned i, DaoSectionOut *o) {
  auto &S = static_cast<DaoLoopFacts *>(h)->sections[i];
  o->loop = S.loop;
  o->base = wrap(S.base);
  o->start = S.start;
  o->size = S.size;
  o->ndims = S.ndims;
  o->symMask = S.symMask;
  for (unsigned d = 0; d < 8; ++d) {
    o->stride[d] = S.stride[d];
    o->count[d] = S.count[d];
    o->symGlobal[d] = S.sym[d].G ? wrap(static_cast<Value *>(S.sym[d].G)) : nullptr;
    o->symOff[d] = S.sym[d].off;
    o->symBytes[d] = S.sym[d].bytes;
    o->symSigned[d] = S.sym[d].sgn;
    o->symAdd[d] = S.sym[d].add;
    o->symLow[d] = S.sym[d].low;
    o->symDiv[d] = S.sym[d].div;
    o->symPre[d] = S.sym[d].pre;
    o->symG2[d] = S.sym[d].G2 ? wrap(static_cast<Value *>(S.sym[d].G2)) : nullptr;
    o->symOff2[d] = S.sym[d].off2;
    o->symBytes2[d] = S.sym[d].bytes2;
    o->symSigned2[d] = S.sym[d].sgn2;
    o->symAdd2[d] = S.sym[d].add2;
    o->symMul[d] = S.sym[d].mul;
  }
  o->nreqs = std::min<size_t>(S.reqs.size(), 4);
  for (unsigned r = 0; r < 4; ++r)
    o->reqMax[r] = INT64_MAX;
  for (unsigned r = 0; r < o->nreqs; ++r) {
    o->reqGlobal[r] = wrap(static_cast<Value *>(S.reqs[r].first.G));
    o->reqOff[r] = S.reqs[r].first.off;
    o->reqBytes[r] = S.reqs[r].first.bytes;
    o->reqSigned[r] = S.reqs[r].first.sgn;
    o->reqMin[r] = S.reqs[r].second;
    o->reqMax[r] = S.reqs[r].first.high;
  }
}
unsigned dao_cxx_relw_count(void *h) { return static_cast<DaoLoopFacts *>(h)->relWrites.size(); }
unsigned dao_cxx_relr_count(void *h) { return static_cast<DaoLoopFacts *>(h)->relReads.size(); }
// Relative write (which 0) or read (which 1) i; for a read, `inst` is the
// original load or transfer and `nwrites` its dominating writes.
struct DaoRelOut {
  unsigned loop;
  LLVMValueRef base, inst;
  int64_t start;
  uint64_t size;
  int64_t step;
  unsigned ndims;
  int64_t stride[8];
  uint64_t count[8];
  unsigned nwrites;
  // symbolic dims, as DaoSectionOut's
  unsigned symMask;
  LLVMValueRef symGlobal[8];
  int64_t symOff[8];
  unsigned symBytes[8];
  int symSigned[8];
  int64_t symAdd[8];
  int64_t symLow[8];
  int64_t symFloor[8];
};
void dao_cxx_rel_get(void *h, int which, unsigned i, DaoRelOut *o) {
  auto *F = static_cast<DaoLoopFacts *>(h);
  auto &R = which ? F->relReads[i] : F->relWrites[i];
  o->loop = R.loop;
  o->base = wrap(R.base);
  o->inst = R.inst ? wrap(R.inst) : nullptr;
  o->start = R.start;
  o->size = R.size;
  o->step = R.step;
  o->ndims = R.ndims;
  for (unsigned d = 0; d < 8; ++d) {
    o->stride[d] = R.stride[d];
    o->count[d] = R.count[d];
  }
  o->nwrites = R.writes.size();
  o->symMask = R.symMask;
  for (unsigned d = 0; d < 8; ++d) {
    bool sy = R.symMask >> d & 1;
    o->symGlobal[d] = sy ? wrap(static_cast<Value *>(R.sym[d].G)) : nullptr;
    o->symOff[d] = sy ? R.sym[d].off : 0;
    o->symBytes[d] = sy ? R.sym[d].bytes : 0;
    o->symSigned[d] = sy ? R.sym[d].sgn : 0;
    o->symAdd[d] = sy ? R.sym[d].add : 0;
    o->symLow[d] = sy ? R.sym[d].low : 0;
    o->symFloor[d] = sy ? R.floor[d] : 0;
  }
}
unsigned dao_cxx_relr_write(void *h, unsigned i, unsigned j) { return static_cast<DaoLoopFacts *>(h)->relReads[i].writes[j]; }
// Read i's write j's start in the read's frame.
int64_t dao_cxx_relr_wstart(void *h, unsigned i, unsigned j) { return static_cast<DaoLoopFacts *>(h)->relReads[i].wstarts[j]; }
void dao_cxx_loop_facts_free(void *h) { delete static_cast<DaoLoopFacts *>(h); }
}

namespace {
struct DaoPass : PassInfoMixin<DaoPass> {
  int OptLevel;
  explicit DaoPass(int O) : OptLevel(O) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    int changed = dao_rust_run_on_module(wrap(&M), OptLevel);
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; } // run at -O0 too
};
} // namespace

extern "C" void dao_cxx_register_callbacks(void *pb) {
  PassBuilder &PB = *static_cast<PassBuilder *>(pb);
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel L) {
    int o = L == OptimizationLevel::O0 ? 0 : L == OptimizationLevel::O1 ? 1 : L == OptimizationLevel::O2 ? 2 : 3;
    MPM.addPass(DaoPass(o));
  });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "dao") {
          MPM.addPass(DaoPass(2));
          return true;
        }
        if (Name == "dao-O0") {
          MPM.addPass(DaoPass(0));
          return true;
        }
        return false;
      });
}
