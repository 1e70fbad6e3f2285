#include "sample/indirect_jumps.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

namespace covkit::sample {

namespace {

constexpr size_t kMaxVisit = 4096;       // instructions one backward walk looks at
constexpr int kMaxDepth = 16;            // values evaluated inside one another
constexpr int64_t kMaxEntries = 4096;    // beyond this a "bound" is more likely a misreading
constexpr int64_t kUnboundedEntries = 1024;

struct Affine;

// A value the analysis does not reduce further, told apart by where it
// was made: a register as an instruction wrote it (kDef), as control
// brought it in from outside (kEntry), as several definitions meeting at
// an instruction left it (kJoin), or memory loaded from an address.
struct Atom {
  enum Kind : uint8_t { kDef, kEntry, kJoin, kLoad } kind = kDef;
  uint64_t at = 0;
  Reg reg = Reg::none;
  uint8_t size = 0;
  std::shared_ptr<const Affine> address;  // kLoad
  // What the instruction making it allows (`and $0x7f`, a byte load),
  // unsigned; no part of its identity.
  bool has_range = false;
  int64_t lo = 0, hi = 0;
};

// c + sum(coef * atom).
struct Affine {
  int64_t c = 0;
  std::vector<std::pair<int64_t, Atom>> terms;
};

bool same_affine(const Affine& a, const Affine& b);

bool same_atom(const Atom& a, const Atom& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Atom::kDef:
    case Atom::kJoin: return a.at == b.at && a.reg == b.reg;
    case Atom::kEntry: return a.reg == b.reg;
    case Atom::kLoad: return a.size == b.size && same_affine(*a.address, *b.address);
  }
  return false;
}

bool same_affine(const Affine& a, const Affine& b) {
  if (a.c != b.c || a.terms.size() != b.terms.size()) return false;
  for (const auto& term : a.terms) {
    const int64_t k = term.first;
    const Atom& atom = term.second;  // not a structured binding: clang 14 cannot capture one
    auto it = std::find_if(b.terms.begin(), b.terms.end(), [&](const auto& t) { return same_atom(t.second, atom); });
    if (it == b.terms.end() || it->first != k) return false;
  }
  return true;
}

Affine constant(int64_t c) { return Affine{c, {}}; }
Atom atom(Atom::Kind kind, uint64_t at, Reg reg) {
  Atom a;
  a.kind = kind;
  a.at = at;
  a.reg = reg;
  return a;
}
Affine of_atom(Atom a) { return Affine{0, {{1, std::move(a)}}}; }

Affine plus(Affine a, const Affine& b, int64_t sign = 1) {
  a.c += sign * b.c;
  for (const auto& term : b.terms) {
    const int64_t k = term.first;
    const Atom& atom = term.second;  // not a structured binding: clang 14 cannot capture one
    auto it = std::find_if(a.terms.begin(), a.terms.end(), [&](const auto& t) { return same_atom(t.second, atom); });
    if (it == a.terms.end()) a.terms.push_back({sign * k, atom});
    else it->first += sign * k;
  }
  std::erase_if(a.terms, [](const auto& t) { return t.first == 0; });
  return a;
}

Affine times(Affine a, int64_t k) {
  a.c *= k;
  for (auto& t : a.terms) t.first *= k;
  std::erase_if(a.terms, [](const auto& t) { return t.first == 0; });
  return a;
}

// The single atom of a value `k + atom` (coefficient 1), if it is one.
const Atom* lone_atom(const Affine& a) { return a.terms.size() == 1 && a.terms[0].first == 1 ? &a.terms[0].second : nullptr; }

int64_t mask_of(uint8_t size) { return size >= 8 ? -1 : size == 0 ? 0 : int64_t((uint64_t(1) << (8 * size)) - 1); }

class Evaluator {
 public:
  Evaluator(const CodeView& code) : code_(code) {}

  // The value of `r` just before the instruction at `p` runs.
  Affine value(Reg r, uint64_t p, int depth = 0) {
    Atom join = atom(Atom::kJoin, p, r);
    if (r < Reg::rax || r > Reg::r15 || depth > kMaxDepth) return of_atom(join);
    CodeView::ReachingDef known = code_.reaching_def(r, p);
    switch (known.kind) {
      case CodeView::Reaching::one: return defined(r, known.at, depth + 1);
      case CodeView::Reaching::outside: return of_atom(atom(Atom::kEntry, 0, r));
      case CodeView::Reaching::clobbered: return of_atom(join);
      case CodeView::Reaching::several: break;
    }
    Reaching defs = reaching(r, p);
    if (defs.failed) return of_atom(join);
    if (defs.open && defs.at.empty()) return of_atom(atom(Atom::kEntry, 0, r));
    if (defs.open) return of_atom(join);
    if (defs.at.size() == 1) return defined(r, defs.at[0], depth + 1);
    // Several definitions: one value only if they all give the same constant
    // (a table base loaded on two paths).
    std::optional<int64_t> same;
    for (uint64_t d : defs.at) {
      Affine v = defined(r, d, depth + 1);
      if (!v.terms.empty() || (same && *same != v.c)) return of_atom(join);
      same = v.c;
    }
    return constant(*same);
  }

  // The address a memory operand of the instruction at `p` names
  // (nullopt for %fs:/%gs: relative ones).
  std::optional<Affine> address(const Operand& m, uint64_t p, int depth = 0) {
    if (m.kind != Operand::kMem || m.segment) return std::nullopt;
    Affine a = constant(m.disp);
    if (m.base != Reg::none) a = plus(a, value(m.base, p, depth));
    if (m.index != Reg::none) a = plus(a, times(value(m.index, p, depth), m.scale));
    return a;
  }

  Affine load(const Operand& m, uint64_t p, int depth, uint64_t def_at, Reg r) {
    auto a = address(m, p, depth);
    if (!a) return of_atom(atom(Atom::kDef, def_at, r));
    Atom l = atom(Atom::kLoad, 0, Reg::none);
    l.size = m.size;
    l.address = std::make_shared<const Affine>(std::move(*a));
    return of_atom(std::move(l));
  }

  // Where the value of `r` at `p` may have been written: the nearest
  // writers on every path back (open: a path reached a root or a call
  // that may clobber it, so part of it came from outside).
  struct Reaching {
    std::vector<uint64_t> at;
    bool open = false, failed = false;
  };
  Reaching reaching(Reg r, uint64_t p) {
    Reaching out;
    std::vector<uint64_t> work(code_.predecessors(p).begin(), code_.predecessors(p).end());
    if (code_.is_root(p)) out.open = true;
    std::set<uint64_t> seen;
    while (!work.empty()) {
      uint64_t q = work.back();
      work.pop_back();
      if (!seen.insert(q).second) continue;
      if (seen.size() > kMaxVisit) {
        out.failed = true;
        return out;
      }
      const DecodedInsn* in = code_.at(q);
      if (!in) {
        out.open = true;
        continue;
      }
      if (in->writes_reg(r)) {
        out.at.push_back(q);
        continue;
      }
      if ((in->flow == Flow::call || in->flow == Flow::indirect_call) && (kCallClobbered & reg_bit(r))) {
        out.open = true;
        continue;
      }
      if (code_.is_root(q)) out.open = true;
      for (uint64_t pr : code_.predecessors(q)) work.push_back(pr);
    }
    return out;
  }

 private:
  Affine opaque(uint64_t d, Reg r, bool ranged = false, int64_t hi = 0) {
    Atom a = atom(Atom::kDef, d, r);
    if (ranged) {
      a.has_range = true;
      a.hi = hi;
    }
    return of_atom(std::move(a));
  }

  // A narrower register copied or zero-extended: still the same value,
  // within the range its width allows.
  static Affine narrowed(Affine v, int64_t hi) {
    if (v.c == 0 && v.terms.size() == 1 && v.terms[0].first == 1) {
      Atom& a = v.terms[0].second;
      if (!a.has_range || a.hi > hi) {
        a.has_range = true;
        a.lo = 0;
        a.hi = hi;
      }
    }
    return v;
  }

  // The value instruction `d` writes to `r`.
  Affine defined(Reg r, uint64_t d, int depth) {
    const DecodedInsn* in = code_.at(d);
    if (!in || in->op_count < 1 || in->ops[0].kind != Operand::kReg || in->ops[0].reg != r || in->ops[0].high_byte)
      return opaque(d, r);
    const Operand& dst = in->ops[0];
    const Operand* src = in->op_count >= 2 ? &in->ops[1] : nullptr;
    auto src_reg = [&]() -> std::optional<Reg> {
      if (src && src->kind == Operand::kReg && !src->high_byte) return src->reg;
      return std::nullopt;
    };
    switch (in->op) {
      case Op::mov:
        if (!src) break;
        if (src->kind == Operand::kImm) return constant(dst.size == 4 ? int64_t(uint32_t(src->imm)) : src->imm);
        if (auto s = src_reg()) return value(*s, d, depth);
        if (src->kind == Operand::kMem) return load(*src, d, depth, d, r);
        break;
      case Op::movzx:
        if (!src || src->size == 0 || src->size > 2) break;
        if (auto s = src_reg()) return narrowed(value(*s, d, depth), mask_of(src->size));
        if (src->kind == Operand::kMem) return narrowed(load(*src, d, depth, d, r), mask_of(src->size));
        break;
      case Op::movsx:
        if (!src) break;
        if (auto s = src_reg(); s && src->size >= 4) return value(*s, d, depth);  // movslq, cltq
        if (src->kind == Operand::kMem) return load(*src, d, depth, d, r);
        break;
      case Op::lea:
        if (src)
          if (auto a = address(*src, d, depth)) return *a;
        break;
      case Op::add:
      case Op::sub: {
        if (!src) break;
        int64_t sign = in->op == Op::add ? 1 : -1;
        if (in->op == Op::sub && src_reg() == r) return constant(0);
        if (src->kind == Operand::kImm) return plus(value(r, d, depth), constant(src->imm), sign);
        if (auto s = src_reg()) return plus(value(r, d, depth), value(*s, d, depth), sign);
        break;
      }
      case Op::xor_:
        if (src_reg() == r) return constant(0);
        break;
      case Op::and_:
        if (src && src->kind == Operand::kImm) {
          int64_t m = src->imm & mask_of(dst.size);
          if (m >= 0) return opaque(d, r, true, m);
        }
        break;
      case Op::shl:
        if (src && src->kind == Operand::kImm && src->imm >= 0 && src->imm < 8)
          return times(value(r, d, depth), int64_t(1) << src->imm);
        break;
      case Op::shr:
        if (src && src->kind == Operand::kImm && src->imm > 0 && src->imm < 64 && dst.size >= 1 && dst.size <= 4)
          return opaque(d, r, true, int64_t(uint64_t(mask_of(dst.size)) >> src->imm));
        break;
      default: break;
    }
    return opaque(d, r);
  }

  const CodeView& code_;
};

// Where the instructions that make `a` are: reaching one of them going
// back means the path made the value anew (so a check further back says
// nothing of it).
void making_points(const Atom& a, Evaluator& ev, std::set<uint64_t>& out, bool& from_roots, int depth = 0) {
  if (depth > 4) return;
  switch (a.kind) {
    case Atom::kDef:
    case Atom::kJoin: out.insert(a.at); break;
    case Atom::kEntry: from_roots = true; break;
    case Atom::kLoad:
      for (const auto& [k, inner] : a.address->terms) making_points(inner, ev, out, from_roots, depth + 1);
      break;
  }
  (void)ev;
}

struct IndexRange {
  int64_t lo = 0, hi = 0;
  bool bounded = false;  // by compares on every path (else by the index's own range)
};

class BoundSearch {
 public:
  BoundSearch(const CodeView& code, Evaluator& ev, const Atom& index) : code_(code), ev_(ev), index_(index) {
    making_points(index, ev, making_, from_roots_);
  }

  // The index's range on every path into `use`, or nullopt.
  std::optional<IndexRange> run(uint64_t use) {
    std::vector<std::pair<uint64_t, uint64_t>> work;  // (instruction, the successor we came back from)
    for (uint64_t p : code_.predecessors(use)) work.push_back({p, use});
    if (code_.is_root(use)) return fallback();
    std::set<std::pair<uint64_t, uint64_t>> seen;
    bool any = false, unchecked = false;
    int64_t lo = 0, hi = 0;
    while (!work.empty()) {
      auto [q, from] = work.back();
      work.pop_back();
      if (!seen.insert({q, from}).second) continue;
      if (seen.size() > kMaxVisit) return std::nullopt;
      if (making_.count(q)) {
        unchecked = true;  // made anew with no compare after it
        continue;
      }
      const DecodedInsn* in = code_.at(q);
      if (!in) return std::nullopt;
      if (in->op == Op::jcc) {
        if (auto r = checked(*in, from)) {
          lo = any ? std::min(lo, r->first) : r->first;
          hi = any ? std::max(hi, r->second) : r->second;
          any = true;
          continue;
        }
      }
      if (code_.is_root(q)) {
        unchecked = true;
        continue;
      }
      for (uint64_t p : code_.predecessors(q)) work.push_back({p, q});
    }
    if (!unchecked && any) return IndexRange{lo, hi, true};
    return fallback();
  }

 private:
  std::optional<IndexRange> fallback() const {
    if (index_.has_range) return IndexRange{index_.lo, index_.hi, false};
    return std::nullopt;
  }

  // What taking the edge from the conditional jump `j` to `to` says of the
  // index: [lo, hi], when the compare before it is on the index.
  std::optional<std::pair<int64_t, int64_t>> checked(const DecodedInsn& j, uint64_t to) {
    bool taken = to == j.target && to != j.next();
    bool fallthrough = to == j.next();
    // The compare that set the flags: the nearest flag writer before the
    // jump on its straight-line path.
    const DecodedInsn* setter = nullptr;
    uint64_t at = j.address;
    for (int i = 0; i < 8; ++i) {
      auto preds = code_.predecessors(at);
      if (preds.size() != 1) return std::nullopt;
      const DecodedInsn* p = code_.at(preds[0]);
      if (!p || p->next() != at || p->flow != Flow::plain) return std::nullopt;
      if (p->writes_flags) {
        setter = p;
        break;
      }
      at = p->address;
    }
    if (!setter || (setter->op != Op::cmp && setter->op != Op::sub) || setter->op_count < 2 ||
        setter->ops[1].kind != Operand::kImm)
      return std::nullopt;
    const Operand& x = setter->ops[0];
    Affine v;
    if (x.kind == Operand::kReg && !x.high_byte) {
      v = ev_.value(x.reg, setter->address);
    } else if (x.kind == Operand::kMem) {
      auto a = ev_.address(x, setter->address);
      if (!a) return std::nullopt;
      Atom l = atom(Atom::kLoad, 0, Reg::none);
      l.size = x.size;
      l.address = std::make_shared<const Affine>(std::move(*a));
      v = of_atom(std::move(l));
    } else {
      return std::nullopt;
    }
    const Atom* a = lone_atom(v);
    if (!a || !same_atom(*a, index_)) return std::nullopt;
    int64_t n = setter->ops[1].imm & mask_of(x.size);
    if (n < 0) return std::nullopt;
    int64_t max = -1;
    switch (j.cond) {
      case Cond::a: max = fallthrough ? n : -1; break;       // x > n jumps away
      case Cond::ae: max = fallthrough ? n - 1 : -1; break;  // x >= n jumps away
      case Cond::be: max = taken ? n : -1; break;            // x <= n jumps here
      case Cond::b: max = taken ? n - 1 : -1; break;         // x < n jumps here
      default: break;
    }
    if (max < 0) return std::nullopt;
    // x = k + index, 0 <= x <= max.
    return std::pair{-v.c, max - v.c};
  }

  const CodeView& code_;
  Evaluator& ev_;
  const Atom& index_;
  std::set<uint64_t> making_;
  bool from_roots_ = false;
};

template <typename T>
std::optional<T> read(const BinaryImage& image, uint64_t vaddr) {
  auto bytes = image.bytes_at(vaddr, sizeof(T));
  if (bytes.empty()) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data(), sizeof v);  // x86-64 is little-endian, as the file
  return v;
}

}  // namespace

std::optional<JumpTable> resolve_jump_table(const BinaryImage& image, const CodeView& code, uint64_t jump,
                                            const TargetCheck& valid) {
  const DecodedInsn* j = code.at(jump);
  if (!j || j->flow != Flow::indirect_jump || j->op_count != 1 || j->rip_slot) return std::nullopt;
  Evaluator ev(code);
  // The target as a value: jmp *mem is a load of 8 bytes.
  Affine target;
  if (j->ops[0].kind == Operand::kMem) {
    auto a = ev.address(j->ops[0], jump);
    if (!a) return std::nullopt;
    Atom l = atom(Atom::kLoad, 0, Reg::none);
    l.size = 8;
    l.address = std::make_shared<const Affine>(std::move(*a));
    target = of_atom(std::move(l));
  } else if (j->ops[0].kind == Operand::kReg) {
    target = ev.value(j->ops[0].reg, jump);
  } else {
    return std::nullopt;
  }
  const Atom* entry = lone_atom(target);
  if (!entry || entry->kind != Atom::kLoad) return std::nullopt;
  JumpTable t;
  if (entry->size == 8 && target.c == 0) {
    t.entry_size = 8;
  } else if (entry->size == 4 && target.c != 0) {
    t.entry_size = 4;
    t.base = uint64_t(target.c);
  } else {
    return std::nullopt;
  }
  // The entry's address: table + size * index.
  const Affine& at = *entry->address;
  if (at.terms.size() != 1 || at.terms[0].first != t.entry_size) return std::nullopt;
  const Atom& index = at.terms[0].second;

  // The index is the same value wherever it is read after it was made:
  // bound it on the paths into the jump.
  std::optional<IndexRange> range = BoundSearch(code, ev, index).run(jump);
  if (!range) {
    // Nothing bounds it: read until the first entry that is no target.
    range = IndexRange{0, kUnboundedEntries - 1, false};
  }
  if (range->hi < range->lo || range->hi - range->lo >= kMaxEntries) return std::nullopt;
  t.bounded = range->bounded;
  t.table = uint64_t(at.c + t.entry_size * range->lo);
  std::optional<uint64_t> end = image.object_end(t.table);  // a computed goto's table is a symbol
  for (int64_t i = range->lo; i <= range->hi; ++i) {
    uint64_t slot = uint64_t(at.c + t.entry_size * i);
    if (end && slot + t.entry_size > *end) break;
    std::optional<uint64_t> target_at;
    if (t.entry_size == 8) {
      target_at = image.pointer_at(slot);
    } else if (auto e = read<int32_t>(image, slot)) {
      target_at = t.base + uint64_t(int64_t(*e));
    }
    if (!target_at || !valid(*target_at)) {
      if (t.bounded || t.targets.empty()) return std::nullopt;
      break;  // the end of a table bounded only by its index's type
    }
    if (std::find(t.targets.begin(), t.targets.end(), *target_at) == t.targets.end()) t.targets.push_back(*target_at);
  }
  if (t.targets.empty()) return std::nullopt;
  return t;
}

}  // namespace covkit::sample
