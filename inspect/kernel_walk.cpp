// The walk of one kernel's AST; contract in kernel_walk.h.
#include "inspect/kernel_walk.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace hqc::inspect {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// A function body being walked: the kernel (caller == nullptr) or a library function reached
// through a call whose arguments `args` (of the caller's frame) bind its parameters.
struct Frame {
  const FunctionDecl* fn = nullptr;
  const Frame* caller = nullptr;
  std::map<const ParmVarDecl*, const Expr*> args;
  SourceLocation kernel_loc;  // the kernel statement the outermost call sits in
  std::string via;            // the outermost library function
};

// A condition under which the code being walked runs (negated: its else branch, or the rest of a
// block after `if (cond) return;`).
struct Guard {
  const Expr* cond;
  const Frame* frame;
  bool negated;
};

// What an expression says about the work-item index: the local id itself, its lane, its warp.
enum class Id { None, Lid, Lane, Warp };

bool is_atomic_name(const std::string& n) {
  return n.rfind("atomic", 0) == 0 || n.rfind("atom_", 0) == 0;
}

std::string atomic_op(std::string n) {
  for (const char* prefix : {"atomic_", "atom_", "atomic"})
    if (n.rfind(prefix, 0) == 0) {
      n = n.substr(std::string(prefix).size());
      break;
    }
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (n == "cmpxchg") return "cas";
  return n;
}

// Whether `s` refers to the variable `name` (a CUDA builtin variable).
bool names_var(const Stmt* s, llvm::StringRef name) {
  if (s == nullptr) return false;
  if (const auto* d = dyn_cast<DeclRefExpr>(s)) return d->getDecl()->getName() == name;
  if (const auto* po = dyn_cast<PseudoObjectExpr>(s)) return names_var(po->getSyntacticForm(), name);
  if (const auto* p = dyn_cast<MSPropertyRefExpr>(s)) return names_var(p->getBaseExpr(), name);
  if (const auto* o = dyn_cast<OpaqueValueExpr>(s)) return names_var(o->getSourceExpr(), name);
  for (const Stmt* child : s->children())
    if (names_var(child, name)) return true;
  return false;
}

bool is_barrier_name(const std::string& n) { return n == "__syncthreads" || n == "barrier" || n == "work_group_barrier"; }

bool is_shared_var(const VarDecl* v) {
  return v->hasAttr<CUDASharedAttr>() || v->getType().getAddressSpace() == LangAS::opencl_local;
}

bool is_local_pointer_param(const ParmVarDecl* p) {
  const QualType t = p->getType();
  return t->isPointerType() && t->getPointeeType().getAddressSpace() == LangAS::opencl_local;
}

// A call's callee with a body in this module (a library function), or nullptr.
const FunctionDecl* defined_callee(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (callee == nullptr) return nullptr;
  const FunctionDecl* def = callee->getDefinition();
  // An implicit member (a struct's copy assignment in CUDA C++) is a plain copy, not a library call.
  return def != nullptr && def->hasBody() && !def->isImplicit() ? def : nullptr;
}

// `if (c) return/continue/break;` without an else: the rest of the block runs under !c.
bool exits(const Stmt* s) {
  if (s == nullptr) return false;
  if (isa<ReturnStmt>(s) || isa<ContinueStmt>(s) || isa<BreakStmt>(s)) return true;
  if (const auto* c = dyn_cast<CompoundStmt>(s)) return !c->body_empty() && exits(c->body_back());
  return false;
}

class KernelWalker {
 public:
  KernelWalker(ASTContext& ctx, const FunctionDecl& kernel, const std::vector<LineTag>& lines)
      : ctx_(ctx), sm_(ctx.getSourceManager()), kernel_(kernel), lines_(lines) {}

  KernelFindings run() {
    out_.name = kernel_.getNameAsString();
    out_.first_line = static_cast<int>(sm_.getExpansionLineNumber(kernel_.getBeginLoc()));
    out_.last_line = static_cast<int>(sm_.getExpansionLineNumber(kernel_.getEndLoc()));
    for (const ParmVarDecl* p : kernel_.parameters()) {
      out_.params.push_back(p->getNameAsString());
      if (p->getType()->isPointerType()) array(p->getNameAsString(), is_local_pointer_param(p) ? Space::Shared : Space::Global,
                                               p->getType()->getPointeeType().getAsString());
      if (is_local_pointer_param(p))
        out_.shared.push_back({p->getNameAsString(), p->getType()->getPointeeType().getAsString(), true, 0, line(p->getLocation())});
    }
    collect_definitions();
    Frame top;
    top.fn = &kernel_;
    walk(kernel_.getBody(), top);
    std::vector<ArrayUse> used;
    for (ArrayUse& a : out_.arrays)
      if (!a.reads.empty() || !a.writes.empty() || any_atomic_on(a.name) || a.space == Space::Global) used.push_back(std::move(a));
    out_.arrays = std::move(used);
    return std::move(out_);
  }

 private:
  ASTContext& ctx_;
  SourceManager& sm_;
  const FunctionDecl& kernel_;
  const std::vector<LineTag>& lines_;
  KernelFindings out_;
  std::vector<Guard> guards_;
  std::vector<const FunctionDecl*> active_;  // library functions being walked (no recursion)
  bool in_tile_loop_ = false;
  bool in_match_loop_ = false;
  int kernel_loop_depth_ = 0;

  // Every value a kernel variable is given (its initializer, its assignments), and the narrowing
  // assignments `flag = flag && ...` of the tuple's flag, each with its banner and position.
  std::map<const VarDecl*, std::vector<const Expr*>> definitions_;
  struct Narrowing {
    const VarDecl* var;
    unsigned offset;
    std::string banner;
  };
  std::vector<Narrowing> narrowings_;

  int line(SourceLocation loc) const { return static_cast<int>(sm_.getExpansionLineNumber(loc)); }
  unsigned offset(SourceLocation loc) const { return sm_.getFileOffset(sm_.getExpansionLoc(loc)); }
  std::string banner_at(int l) const {
    return l >= 1 && static_cast<size_t>(l) <= lines_.size() ? lines_[static_cast<size_t>(l) - 1].banner : "";
  }
  std::string text(const Expr* e) const {
    const CharSourceRange r = sm_.getExpansionRange(e->getSourceRange());
    return Lexer::getSourceText(r, sm_, ctx_.getLangOpts()).str();
  }

  ArrayUse& array(const std::string& name, Space space, const std::string& type = "") {
    for (ArrayUse& a : out_.arrays)
      if (a.name == name) return a;
    out_.arrays.push_back({name, space, type, {}, {}});
    return out_.arrays.back();
  }
  bool any_atomic_on(const std::string& name) const {
    return std::any_of(out_.atomics.begin(), out_.atomics.end(), [&](const Atomic& a) { return a.target == name; });
  }

  void collect_definitions() {
    const Stmt& body = *kernel_.getBody();
    for (const BoundNodes& b : match(stmt(forEachDescendant(varDecl(hasInitializer(expr().bind("init"))).bind("var"))), body, ctx_))
      definitions_[b.getNodeAs<VarDecl>("var")].push_back(b.getNodeAs<Expr>("init"));
    const auto assigned = declRefExpr(to(varDecl(hasLocalStorage()).bind("var")));
    for (const BoundNodes& b : match(stmt(forEachDescendant(binaryOperator(isAssignmentOperator(), hasLHS(ignoringParenImpCasts(assigned))).bind("assign"))),
                                     body, ctx_)) {
      const auto* assign = b.getNodeAs<BinaryOperator>("assign");
      const auto* var = b.getNodeAs<VarDecl>("var");
      definitions_[var].push_back(assign->getRHS());
      // flag = flag && (...): the tuple's flag narrowed by the operator whose banner this line is under.
      const auto* rhs = dyn_cast<BinaryOperator>(assign->getRHS()->IgnoreParenImpCasts());
      if (assign->getOpcode() == BO_Assign && rhs != nullptr && rhs->getOpcode() == BO_LAnd) {
        const auto* lhs_ref = dyn_cast<DeclRefExpr>(rhs->getLHS()->IgnoreParenImpCasts());
        if (lhs_ref != nullptr && lhs_ref->getDecl() == var)
          narrowings_.push_back({var, offset(assign->getBeginLoc()), banner_at(line(assign->getBeginLoc()))});
      }
    }
  }

  // ---------------------------------------------------------------- what expressions refer to

  // Kernel-level variables and parameters `s` depends on, following library parameters to the
  // arguments bound to them and library locals to their initializers.
  void refs(const Stmt* s, const Frame* f, std::set<const ValueDecl*>& out, int depth = 0) const {
    if (s == nullptr || depth > 48) return;
    if (const auto* d = dyn_cast<DeclRefExpr>(s)) {
      const ValueDecl* decl = d->getDecl();
      if (f->caller == nullptr) {
        if (isa<VarDecl>(decl)) out.insert(decl);
      } else if (const auto* p = dyn_cast<ParmVarDecl>(decl)) {
        auto it = f->args.find(p);
        if (it != f->args.end()) refs(it->second, f->caller, out, depth + 1);
      } else if (const auto* v = dyn_cast<VarDecl>(decl); v != nullptr && v->hasLocalStorage() && v->hasInit()) {
        refs(v->getInit(), f, out, depth + 1);
      }
      return;
    }
    for (const Stmt* child : s->children()) refs(child, f, out, depth + 1);
  }

  // The kernel variables the current guards depend on, through every value given to them.
  std::set<const ValueDecl*> guard_closure() const {
    std::set<const ValueDecl*> seen;
    for (const Guard& g : guards_) refs(g.cond, g.frame, seen);
    std::vector<const ValueDecl*> work(seen.begin(), seen.end());
    while (!work.empty()) {
      const auto* v = dyn_cast<VarDecl>(work.back());
      work.pop_back();
      auto it = v != nullptr ? definitions_.find(v) : definitions_.end();
      if (it == definitions_.end()) continue;
      for (const Expr* def : it->second) {
        std::set<const ValueDecl*> more;
        refs(def, &kernel_frame_, more);
        for (const ValueDecl* m : more)
          if (seen.insert(m).second) work.push_back(m);
      }
    }
    return seen;
  }

  // The banners of the narrowings that reach the current guards before `at`.
  std::vector<std::string> guard_banners(unsigned at) const {
    const std::set<const ValueDecl*> seen = guard_closure();
    std::vector<std::string> banners;
    for (const Narrowing& n : narrowings_)
      if (n.offset < at && seen.count(n.var) != 0 && std::find(banners.begin(), banners.end(), n.banner) == banners.end())
        banners.push_back(n.banner);
    return banners;
  }

  // Whether the current guards depend on a lookup in a scratchpad table (a kernel variable given
  // the result of a call that is passed a shared array): the spill path of a CTA's table.
  bool behind_scratchpad_lookup() const {
    for (const ValueDecl* v : guard_closure()) {
      auto it = definitions_.find(dyn_cast<VarDecl>(v));
      if (it == definitions_.end()) continue;
      for (const Expr* def : it->second)
        for (const BoundNodes& b : match(expr(forEachDescendant(callExpr().bind("call"))), *def, ctx_)) {
          const auto* call = b.getNodeAs<CallExpr>("call");
          for (const Expr* arg : call->arguments())
            if (arg->getType()->isPointerType() && provenance(arg, &kernel_frame_).space == Space::Shared) return true;
        }
    }
    return false;
  }

  Frame kernel_frame_;  // refs() over kernel-level definitions

  Id id_kind(const Expr* e, const Frame* f, int depth = 0) const {
    if (e == nullptr || depth > 32) return Id::None;
    e = e->IgnoreParenCasts();
    // threadIdx.x (CUDA): a property of Clang's builtin variable (PseudoObjectExpr / MSPropertyRefExpr).
    if (isa<PseudoObjectExpr>(e) || isa<MSPropertyRefExpr>(e) || isa<MemberExpr>(e))
      return names_var(e, "threadIdx") ? Id::Lid : Id::None;
    if (const auto* call = dyn_cast<CallExpr>(e)) {
      const FunctionDecl* callee = call->getDirectCallee();
      if (callee == nullptr) return Id::None;
      if (callee->getName() == "get_local_id") return Id::Lid;
      const FunctionDecl* def = defined_callee(call);
      const auto* body = def != nullptr ? dyn_cast<CompoundStmt>(def->getBody()) : nullptr;
      if (body == nullptr || body->size() != 1) return Id::None;
      const auto* ret = dyn_cast<ReturnStmt>(body->body_front());
      if (ret == nullptr) return Id::None;
      Frame inner{def, f, bind(def, call), f->kernel_loc, f->via};
      return id_kind(ret->getRetValue(), &inner, depth + 1);
    }
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      const Id l = id_kind(b->getLHS(), f, depth + 1);
      Expr::EvalResult r;
      if (l != Id::Lid || !b->getRHS()->EvaluateAsInt(r, ctx_)) return Id::None;
      const int64_t k = r.Val.getInt().getExtValue();
      if ((b->getOpcode() == BO_Rem && k == 32) || (b->getOpcode() == BO_And && k == 31)) return Id::Lane;
      if ((b->getOpcode() == BO_Div && k == 32) || (b->getOpcode() == BO_Shr && k == 5)) return Id::Warp;
      return Id::None;
    }
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      if (const auto* p = dyn_cast<ParmVarDecl>(d->getDecl())) {
        auto it = f->args.find(p);
        return it != f->args.end() ? id_kind(it->second, f->caller, depth + 1) : Id::None;
      }
      if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v != nullptr && v->hasLocalStorage() && v->hasInit())
        return id_kind(v->getInit(), f, depth + 1);
    }
    return Id::None;
  }

  // The id tested against zero by `cond` (conjunctions: each conjunct), into `lid/lane/warp`.
  void zero_tests(const Expr* cond, const Frame* f, bool& lid, bool& lane, bool& warp) const {
    cond = cond->IgnoreParenCasts();
    const auto* b = dyn_cast<BinaryOperator>(cond);
    if (b == nullptr) return;
    if (b->getOpcode() == BO_LAnd) {
      zero_tests(b->getLHS(), f, lid, lane, warp);
      zero_tests(b->getRHS(), f, lid, lane, warp);
      return;
    }
    if (b->getOpcode() != BO_EQ) return;
    for (auto [side, other] : {std::pair{b->getLHS(), b->getRHS()}, std::pair{b->getRHS(), b->getLHS()}}) {
      Expr::EvalResult r;
      if (!other->EvaluateAsInt(r, ctx_) || r.Val.getInt() != 0) continue;
      switch (id_kind(side, f)) {
        case Id::Lid: lid = true; break;
        case Id::Lane: lane = true; break;
        case Id::Warp: warp = true; break;
        case Id::None: break;
      }
    }
  }

  Position position() const {
    bool lid = false, lane = false, warp = false;
    for (const Guard& g : guards_)
      if (!g.negated) zero_tests(g.cond, g.frame, lid, lane, warp);
    if (lid || (lane && warp)) return Position::PerCta;
    if (lane) return Position::PerWarp;
    return in_tile_loop_ ? Position::PerTuple : Position::PerThread;
  }

  struct Origin {
    std::string name;
    Space space = Space::Unknown;
  };

  // The array a pointer expression points into.
  Origin provenance(const Expr* e, const Frame* f, int depth = 0) const {
    if (e == nullptr || depth > 48) return {};
    e = e->IgnoreParenCasts();
    if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
      if (const auto* p = dyn_cast<ParmVarDecl>(d->getDecl())) {
        if (f->caller == nullptr) return {p->getNameAsString(), is_local_pointer_param(p) ? Space::Shared : Space::Global};
        auto it = f->args.find(p);
        return it != f->args.end() ? provenance(it->second, f->caller, depth + 1) : Origin{};
      }
      if (const auto* v = dyn_cast<VarDecl>(d->getDecl())) {
        if (is_shared_var(v)) return {v->getNameAsString(), Space::Shared};
        if (v->getType()->isPointerType() && v->hasInit()) return provenance(v->getInit(), f, depth + 1);
        return {v->getNameAsString(), Space::Private};
      }
      return {};
    }
    if (const auto* s = dyn_cast<ArraySubscriptExpr>(e)) return provenance(s->getBase(), f, depth + 1);
    if (const auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)
        return provenance(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS(), f, depth + 1);
      return {};
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_AddrOf) return provenance(u->getSubExpr(), f, depth + 1);
      return {};
    }
    if (const auto* m = dyn_cast<MemberExpr>(e)) return provenance(m->getBase(), f, depth + 1);
    if (const auto* c = dyn_cast<ConditionalOperator>(e)) return provenance(c->getTrueExpr(), f, depth + 1);
    return {};
  }

  // ---------------------------------------------------------------- recording

  SourceLocation kernel_loc(const Stmt* s, const Frame& f) const { return f.caller == nullptr ? s->getBeginLoc() : f.kernel_loc; }

  void record_access(const Expr* pointer, const Stmt* at, const Frame& f, bool read, bool write) {
    const Origin o = provenance(pointer, &f);
    if (o.space != Space::Global && o.space != Space::Shared) return;
    const SourceLocation loc = kernel_loc(at, f);
    Access a{line(loc), f.via, guard_banners(offset(loc)), in_match_loop_};
    ArrayUse& use = array(o.name, o.space);
    auto add = [&](std::vector<Access>& list) {
      for (const Access& x : list)
        if (x.line == a.line && x.via == a.via && x.guard == a.guard) return;
      list.push_back(a);
    };
    if (read) add(use.reads);
    if (write) add(use.writes);
  }

  void record_atomic(const CallExpr* call, const Frame& f, const std::string& name) {
    if (call->getNumArgs() == 0) return;
    const Origin o = provenance(call->getArg(0), &f);
    const SourceLocation loc = kernel_loc(call, f);
    Atomic a{line(loc), f.via, atomic_op(name), o.name.empty() ? "?" : o.name, o.space, position(), line(call->getBeginLoc()), false};
    a.spill = a.position == Position::PerTuple && behind_scratchpad_lookup();
    if (o.space == Space::Unknown && call->getArg(0)->getType()->isPointerType()) {
      const LangAS as = call->getArg(0)->getType()->getPointeeType().getAddressSpace();
      if (as == LangAS::opencl_global) a.space = Space::Global;
      if (as == LangAS::opencl_local) a.space = Space::Shared;
    }
    for (const Atomic& x : out_.atomics)
      if (x.line == a.line && x.via == a.via && x.op == a.op && x.target == a.target && x.position == a.position &&
          x.library_line == a.library_line)
        return;
    out_.atomics.push_back(a);
  }

  std::map<const ParmVarDecl*, const Expr*> bind(const FunctionDecl* def, const CallExpr* call) const {
    std::map<const ParmVarDecl*, const Expr*> args;
    for (unsigned i = 0; i < call->getNumArgs() && i < def->getNumParams(); ++i) args[def->getParamDecl(i)] = call->getArg(i);
    return args;
  }

  // ---------------------------------------------------------------- the walk

  void walk(const Stmt* s, const Frame& f) {
    if (s == nullptr) return;
    if (const auto* c = dyn_cast<CompoundStmt>(s)) {
      const size_t depth = guards_.size();
      for (const Stmt* child : c->body()) {
        walk(child, f);
        const auto* i = dyn_cast<IfStmt>(child);
        if (i != nullptr && i->getElse() == nullptr && exits(i->getThen())) guards_.push_back({i->getCond(), &f, true});
      }
      guards_.resize(depth);
      return;
    }
    if (const auto* i = dyn_cast<IfStmt>(s)) {
      walk(i->getInit(), f);
      walk(i->getCond(), f);
      guards_.push_back({i->getCond(), &f, false});
      walk(i->getThen(), f);
      guards_.back().negated = true;
      walk(i->getElse(), f);
      guards_.pop_back();
      return;
    }
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return walk_loop(s, f);
    if (const auto* c = dyn_cast<ConditionalOperator>(s)) {
      walk(c->getCond(), f);
      guards_.push_back({c->getCond(), &f, false});
      walk(c->getTrueExpr(), f);
      guards_.back().negated = true;
      walk(c->getFalseExpr(), f);
      guards_.pop_back();
      return;
    }
    if (const auto* b = dyn_cast<BinaryOperator>(s)) {
      if (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr) {
        walk(b->getLHS(), f);
        guards_.push_back({b->getLHS(), &f, b->getOpcode() == BO_LOr});
        walk(b->getRHS(), f);
        guards_.pop_back();
        return;
      }
      if (b->isAssignmentOp()) {
        walk_lvalue(b->getLHS(), s, f, b->isCompoundAssignmentOp(), true);
        walk(b->getRHS(), f);
        return;
      }
    }
    if (const auto* u = dyn_cast<UnaryOperator>(s)) {
      if (u->isIncrementDecrementOp()) return walk_lvalue(u->getSubExpr(), s, f, true, true);
      if (u->getOpcode() == UO_AddrOf) return walk_address(u->getSubExpr(), f);
      if (u->getOpcode() == UO_Deref) {
        record_access(u->getSubExpr(), s, f, true, false);
        return walk_address(u->getSubExpr(), f);
      }
    }
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(s)) {
      record_access(a->getBase(), s, f, true, false);
      walk_address(a->getBase(), f);
      walk(a->getIdx(), f);
      return;
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) return walk_call(call, f);
    if (const auto* a = dyn_cast<GCCAsmStmt>(s)) {
      // Inline PTX (device/loads.cuh's predicated loads): a pointer input is a load through it,
      // issued only where the other inputs (the predicate) hold, as `pred ? *p : 0` would be.
      const size_t depth = guards_.size();
      for (unsigned i = 0; i < a->getNumInputs(); ++i) {
        const Expr* in = a->getInputExpr(i);
        if (in->getType()->isPointerType()) continue;
        walk(in, f);
        guards_.push_back({in, &f, false});
      }
      for (unsigned i = 0; i < a->getNumInputs(); ++i) {
        const Expr* in = a->getInputExpr(i);
        if (!in->getType()->isPointerType()) continue;
        record_access(in, s, f, true, false);
        walk_address(in, f);
      }
      guards_.resize(depth);
      return;
    }
    if (const auto* d = dyn_cast<DeclStmt>(s)) {
      for (const Decl* decl : d->decls())
        if (const auto* v = dyn_cast<VarDecl>(decl)) {
          if (f.caller == nullptr && is_shared_var(v)) record_shared(v);
          walk(v->getInit(), f);
        }
      return;
    }
    for (const Stmt* child : s->children()) walk(child, f);
  }

  void record_shared(const VarDecl* v) {
    SharedDecl d{v->getNameAsString(), v->getType().getAsString(), false, 0, line(v->getLocation())};
    if (const auto* arr = ctx_.getAsConstantArrayType(v->getType())) d.bytes = static_cast<uint64_t>(ctx_.getTypeSizeInChars(arr).getQuantity());
    else d.dynamic = v->getType()->isIncompleteArrayType();
    out_.shared.push_back(d);
  }

  // An lvalue being stored to (and read, for compound assignments and ++/--).
  void walk_lvalue(const Expr* e, const Stmt* at, const Frame& f, bool read, bool write) {
    e = e->IgnoreParens();
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      record_access(a->getBase(), at, f, read, write);
      walk_address(a->getBase(), f);
      walk(a->getIdx(), f);
      return;
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e); u != nullptr && u->getOpcode() == UO_Deref) {
      record_access(u->getSubExpr(), at, f, read, write);
      return walk_address(u->getSubExpr(), f);
    }
    if (const auto* m = dyn_cast<MemberExpr>(e)) return walk_lvalue(m->getBase(), at, f, read, write);
    if (!isa<DeclRefExpr>(e)) walk(e, f);
  }

  // A pointer being computed, not dereferenced: only what its index expressions read counts.
  void walk_address(const Expr* e, const Frame& f) {
    e = e->IgnoreParenCasts();
    if (isa<DeclRefExpr>(e)) return;
    if (const auto* b = dyn_cast<BinaryOperator>(e); b != nullptr && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
      const bool lhs_ptr = b->getLHS()->getType()->isPointerType();
      walk_address(lhs_ptr ? b->getLHS() : b->getRHS(), f);
      walk(lhs_ptr ? b->getRHS() : b->getLHS(), f);
      return;
    }
    if (const auto* u = dyn_cast<UnaryOperator>(e); u != nullptr && u->getOpcode() == UO_AddrOf) {
      const Expr* sub = u->getSubExpr()->IgnoreParens();
      if (const auto* a = dyn_cast<ArraySubscriptExpr>(sub)) {
        walk_address(a->getBase(), f);
        walk(a->getIdx(), f);
        return;
      }
      if (isa<DeclRefExpr>(sub)) return;
    }
    walk(e, f);
  }

  void walk_call(const CallExpr* call, const Frame& f) {
    const FunctionDecl* callee = call->getDirectCallee();
    const std::string name = callee != nullptr ? callee->getNameAsString() : "";
    for (const Expr* arg : call->arguments()) {
      if (arg->getType()->isPointerType()) walk_address(arg, f);
      else walk(arg, f);
    }
    if (callee == nullptr) {
      walk(call->getCallee(), f);
      return;
    }
    const FunctionDecl* def = defined_callee(call);
    // Clang's own header functions (threadIdx.x's __fetch_builtin_x) are built-ins, not the library.
    if (def != nullptr && !sm_.isInMainFile(sm_.getExpansionLoc(def->getLocation()))) return;
    if (def == nullptr) {
      if (is_atomic_name(name)) record_atomic(call, f, name);
      if (is_barrier_name(name)) {
        const SourceLocation loc = kernel_loc(call, f);
        const Barrier b{line(loc), f.via, line(call->getBeginLoc())};
        if (std::none_of(out_.barriers.begin(), out_.barriers.end(), [&](const Barrier& x) {
              return x.line == b.line && x.via == b.via && x.library_line == b.library_line;
            }))
          out_.barriers.push_back(b);
      }
      return;
    }
    if (std::find(active_.begin(), active_.end(), def) != active_.end()) return;
    if (f.caller == nullptr) {
      auto it = std::find_if(out_.calls.begin(), out_.calls.end(), [&](const Call& c) { return c.function == name; });
      if (it == out_.calls.end()) out_.calls.push_back({name, {}});
      it = std::find_if(out_.calls.begin(), out_.calls.end(), [&](const Call& c) { return c.function == name; });
      const int l = line(call->getBeginLoc());
      if (it->lines.empty() || it->lines.back() != l) it->lines.push_back(l);
    }
    Frame inner{def, &f, bind(def, call), kernel_loc(call, f), f.caller == nullptr ? name : f.via};
    active_.push_back(def);
    walk(def->getBody(), inner);
    active_.pop_back();
  }

  void walk_loop(const Stmt* s, const Frame& f) {
    const Stmt* init = nullptr;
    const Expr* cond = nullptr;
    const Expr* inc = nullptr;
    const Stmt* body = nullptr;
    std::string kind;
    if (const auto* l = dyn_cast<ForStmt>(s)) init = l->getInit(), cond = l->getCond(), inc = l->getInc(), body = l->getBody(), kind = "for";
    if (const auto* l = dyn_cast<WhileStmt>(s)) cond = l->getCond(), body = l->getBody(), kind = "while";
    if (const auto* l = dyn_cast<DoStmt>(s)) cond = l->getCond(), body = l->getBody(), kind = "do";
    const bool kernel_level = f.caller == nullptr;
    const bool was_tile = in_tile_loop_, was_match = in_match_loop_;
    if (kernel_level) {
      Loop loop{line(s->getBeginLoc()), kind, cond != nullptr ? text(cond) : "", ""};
      // The grid-stride loop: the kernel's first outermost loop bounded by a scalar parameter (a
      // later one, e.g. C3's merge of the CTA's table, strides over slots, not tuples).
      std::string bound_param;
      if (kernel_loop_depth_ == 0 && out_.tile_bound.empty() && kind == "for" && cond != nullptr)
        for (const BoundNodes& b : match(findAll(declRefExpr(to(parmVarDecl(unless(hasType(pointerType()))).bind("p")))), *cond, ctx_))
          if (bound_param.empty()) bound_param = b.getNodeAs<ParmVarDecl>("p")->getNameAsString();
      if (!bound_param.empty()) {
        loop.role = "grid-stride tile loop";
        if (out_.tile_bound.empty()) out_.tile_bound = bound_param;
        in_tile_loop_ = true;
      } else if (kind == "do" && in_tile_loop_) {
        loop.role = "match loop";
        in_match_loop_ = true;
      }
      out_.loops.push_back(loop);
      ++kernel_loop_depth_;
    }
    walk(init, f);
    walk(cond, f);
    walk(body, f);
    walk(inc, f);
    if (kernel_level) --kernel_loop_depth_;
    in_tile_loop_ = was_tile;
    in_match_loop_ = was_match;
  }
};

}  // namespace

std::vector<const FunctionDecl*> find_kernels(ASTContext& ctx) {
  std::vector<const FunctionDecl*> kernels;
  const auto kernel = functionDecl(isDefinition(), isExpansionInMainFile(),
                                   anyOf(hasAttr(attr::CUDAGlobal), hasAttr(attr::OpenCLKernel)))
                          .bind("k");
  for (const BoundNodes& b : match(kernel, ctx)) kernels.push_back(b.getNodeAs<FunctionDecl>("k"));
  const SourceManager& sm = ctx.getSourceManager();
  std::sort(kernels.begin(), kernels.end(), [&](const FunctionDecl* a, const FunctionDecl* b) {
    return sm.isBeforeInTranslationUnit(a->getBeginLoc(), b->getBeginLoc());
  });
  return kernels;
}

KernelFindings walk_kernel(ASTContext& ctx, const FunctionDecl& kernel, const std::vector<LineTag>& lines) {
  return KernelWalker(ctx, kernel, lines).run();
}

}  // namespace hqc::inspect
