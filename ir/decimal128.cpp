// 128-bit decimal values in later stages (part of build_program(); see ir/lowering.h).
//
// A decimal SUM whose statistics cannot bound it within int64 is a 128-bit accumulator
// (Accumulator::wide, ir/build_state.cpp). The logical plan types every decimal 64-bit
// (decimal(18, s)); when a later pipeline reads such a sum — an expression over it, HAVING, a
// scalar subquery's value, a result column of a Materialize — the IR types it Decimal(38, s)
// (ir::decimal128(), ir/state.h) and everything computed from it follows:
//   - the pipeline binds the accumulator (and a Map's attribute computed from one, an output
//     column written from one, a one-row stage's param holding one, a hash table's payload holding
//     one: an aggregate as a join's build side) with the 128-bit type;
//   - Lowering::typed() copies an expression of the logical plan into a pipeline and retypes it
//     bottom-up over that pipeline's bindings: + and - with a 128-bit operand are 128-bit, * is
//     128-bit when exactly one operand is (a product of two is Unsupported; integer arithmetic over
//     an integer SUM is a 128-bit decimal of scale 0, as the SUM is), a Cast to a decimal of
//     a 128-bit value is 128-bit (the binder only ever raises scales), a Cast to float64 is
//     float64, a CASE with a 128-bit branch is 128-bit, a ROUND of one is 128-bit (at the scale it
//     rounds to); comparisons stay boolean (their operands
//     already share a scale: the binder unified them);
//   - what has no device form yet is rejected here with Error(Unsupported) naming the construct:
//     a 128-bit value as a join key, in a semi/anti join's residual, as a group key, or as the
//     argument of SUM or AVG. MIN and MAX of one are 128-bit accumulators themselves (ir/build_state.cpp:
//     two words and a state word per slot, the locked update of templates/device/base.h).
// Codegen (codegen/expr_emitter.cpp) emits the hqc_i128_* functions of templates/device/base.h
// for these types; the runtime reads 128-bit output columns and params as two words.
#include "ir/lowering.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

bool any_wide(const plan::Expr& e) {
  for (const plan::ExprPtr& a : e.args)
    if (is_decimal128(a->type)) return true;
  return false;
}

void retype(plan::Expr& e, const Pipeline& p) {
  for (const plan::ExprPtr& a : e.args) retype(*a, p);
  switch (e.kind) {
    case plan::ExprKind::Column:
      if (const AttributeBinding* b = p.find_attribute(e.source, e.column); b != nullptr && is_decimal128(b->attr.type))
        e.type = b->attr.type;
      break;
    case plan::ExprKind::Arith:
      if (!any_wide(e)) break;
      // An integer SUM that may leave 64 bits is a 128-bit decimal of scale 0; so is integer
      // arithmetic over it (`sum(l_quantity) + 1`, `count(*) - sum(x)`).
      if ((e.type.id == TypeId::Int64 || e.type.id == TypeId::Int32) && e.arith != plan::ArithOp::Div) e.type = decimal128(0);
      if (e.type.id != TypeId::Decimal)
        throw Error(ErrorKind::Unsupported, e.to_string() + ": " + std::string(plan::arith_symbol(e.arith)) +
                                                " of a 128-bit decimal sum giving " + e.type.to_string() + " has no device form yet");
      if (e.arith == plan::ArithOp::Mul && is_decimal128(e.args.at(0)->type) && is_decimal128(e.args.at(1)->type))
        throw Error(ErrorKind::Unsupported, e.to_string() + ": the product of two 128-bit decimal sums is not supported yet");
      e.type = decimal128(e.type.scale);
      break;
    case plan::ExprKind::Cast:
      if (!any_wide(e) || e.type.id == TypeId::Float64) break;
      if (e.type.id != TypeId::Decimal)
        throw Error(ErrorKind::Unsupported, e.to_string() + ": a cast of a 128-bit decimal sum to " + e.type.to_string() +
                                                " is not supported yet");
      e.type = decimal128(e.type.scale);
      break;
    case plan::ExprKind::Round:
      if (any_wide(e)) e.type = decimal128(e.type.id == TypeId::Decimal ? e.type.scale : 0);
      break;
    case plan::ExprKind::Case: {
      bool wide = false;
      const size_t pairs = (e.args.size() - 1) / 2;
      for (size_t i = 0; i < pairs; ++i) wide = wide || is_decimal128(e.args[2 * i + 1]->type);
      wide = wide || is_decimal128(e.args.back()->type);
      // (An integer CASE over a 128-bit integer SUM is a 128-bit decimal of scale 0, as the SUM is.)
      if (wide && e.type.id == TypeId::Decimal) e.type = decimal128(e.type.scale);
      if (wide && (e.type.id == TypeId::Int64 || e.type.id == TypeId::Int32)) e.type = decimal128(0);
      break;
    }
    default:
      break;
  }
}

}  // namespace

plan::ExprPtr Lowering::typed(const plan::Expr& e, const Pipeline& p) const {
  plan::ExprPtr out = plan::clone(e);
  retype(*out, p);
  mark_overflow_checks(*out, p);
  return out;
}

void Lowering::reject_decimal128(const plan::Expr& e, const std::string& where, const std::string& role) const {
  if (is_decimal128(e.type))
    throw Error(ErrorKind::Unsupported, where + ": " + e.to_string() + " is a 128-bit decimal sum (its statistics do not bound it "
                                                "within 64 bits), which is not supported as " + role + " yet");
}

}  // namespace hqc::ir
