// shim.cpp -- the only C++ in dao. It registers the dao module pass with
// LLVM 19's new pass manager and exposes the few C++-only utilities the Rust
// pass needs (PromoteMemToReg, diagnostics through the LLVMContext). Every
// LLVM-version conditional belongs here and nowhere else.
#include "llvm/IR/DiagnosticInfo.h"
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

using namespace llvm;

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

// Does this call carry the given parameter attribute (e.g. nocapture) on argument i?
int dao_cxx_param_nocapture(LLVMValueRef call, unsigned i) {
  auto *CB = dyn_cast<CallBase>(unwrap(call));
  return CB && i < CB->arg_size() && CB->doesNotCapture(i) ? 1 : 0;
}

// Verify a module; returns 1 when broken and prints the reasons to stderr.
int dao_cxx_verify(LLVMModuleRef m) { return verifyModule(*unwrap(m), &errs()) ? 1 : 0; }

// Clone a module (for the dry run that guarantees a failing transform leaves the real module untouched).
LLVMModuleRef dao_cxx_clone(LLVMModuleRef m) { return wrap(CloneModule(*unwrap(m)).release()); }
void dao_cxx_dispose(LLVMModuleRef m) { delete unwrap(m); }
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
