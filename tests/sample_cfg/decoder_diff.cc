// The decoder's differential test: `objdump -d` (GNU binutils, the oracle)
// against sample/instruction_decoder on every instruction of every
// executable section of the files given.
//
//   covkit_decoder_diff FILE...
//
// For each instruction objdump lists at address A and followed (in the same
// section, with no gap) by the one at B, covkit must decode the bytes at A
// as one instruction of B - A bytes, of the same kind of control flow
// (plain, jump, conditional jump, call, return, halt; direct or through a
// register or memory), to the same target. Where objdump says "(bad)" it
// decoded nothing, so there is nothing to compare (counted: data in text,
// or encodings older objdumps do not know); covkit's answer there is
// counted too. Prints one line per file and up to 20 differences; exit 1
// when there is any difference or a file yields no instruction.
#include <gelf.h>
#include <libelf.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sample/instruction_decoder.h"
#include "util/file_io.h"

namespace {

using covkit::sample::DecodedInsn;
using covkit::sample::Flow;

struct Section {
  std::string name;
  uint64_t addr = 0, offset = 0, size = 0;
};

std::vector<Section> executable_sections(std::span<const uint8_t> bytes) {
  std::vector<Section> out;
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())), bytes.size());
  if (!elf) return out;
  size_t shstrndx = 0;
  elf_getshdrstrndx(elf, &shstrndx);
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    out.push_back({name ? name : "?", sh.sh_addr, sh.sh_offset, sh.sh_size});
  }
  elf_end(elf);
  return out;
}

// One instruction as objdump printed it.
struct Listed {
  uint64_t address = 0;
  bool bad = false;
  Flow flow = Flow::plain;
  std::optional<uint64_t> target;
  std::string text;
};

const std::set<std::string>& prefixes() {
  static const std::set<std::string> p = {"bnd", "notrack", "rep", "repz", "repe", "repnz", "repne", "lock",
                                          "data16", "data32", "addr32", "cs", "ds", "es", "ss", "fs", "gs",
                                          "xacquire", "xrelease", "{disp32}", "{disp8}", "{vex}", "{vex3}",
                                          "{evex}", "{load}", "{store}"};
  return p;
}

// objdump's mnemonic into covkit's kind of control flow.
Listed classify(uint64_t address, const std::string& text) {
  Listed l;
  l.address = address;
  l.text = text;
  std::istringstream in(text);
  std::string m;
  while (in >> m && (prefixes().count(m) || m.starts_with("rex"))) {
  }
  std::string operand;
  in >> operand;
  if (m == "(bad)") {
    l.bad = true;
    return l;
  }
  bool through = operand.starts_with("*");
  auto target = [&] {
    if (!through && !operand.empty()) l.target = std::strtoull(operand.c_str(), nullptr, 16);
  };
  if (m == "jmp" || m == "jmpq" || m == "ljmp") {
    l.flow = through || m == "ljmp" ? Flow::indirect_jump : Flow::jump;
    if (l.flow == Flow::jump) target();
  } else if (m == "call" || m == "callq" || m == "lcall") {
    l.flow = through || m == "lcall" ? Flow::indirect_call : Flow::call;
    if (l.flow == Flow::call) target();
  } else if ((m.size() >= 2 && m[0] == 'j') || m.starts_with("loop") || m == "xbegin") {
    l.flow = Flow::cond_jump;
    target();
  } else if (m.starts_with("ret") || m.starts_with("lret") || m.starts_with("iret") || m.starts_with("sysret") ||
             m == "sysexit") {
    l.flow = Flow::ret;
  } else if (m == "hlt" || m == "ud2" || m.starts_with("ud0") || m.starts_with("ud1") || m == "int3" ||
             m == "icebp" || m == "int1") {
    l.flow = Flow::halt;
  }
  return l;
}

// objdump's listing, by section.
std::map<std::string, std::vector<Listed>> objdump(const std::string& file) {
  std::map<std::string, std::vector<Listed>> out;
  std::string cmd = "objdump -d -z -w --no-show-raw-insn '" + file + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::string section;
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = ::getline(&line, &cap, p)) > 0) {
    std::string s(line, size_t(n));
    if (!s.empty() && s.back() == '\n') s.pop_back();
    if (s.starts_with("Disassembly of section ")) {
      section = s.substr(23);
      if (!section.empty() && section.back() == ':') section.pop_back();
      continue;
    }
    size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    size_t colon = s.find(":\t", i);
    if (i == 0 || colon == std::string::npos || colon == i) continue;
    char* end = nullptr;
    uint64_t address = std::strtoull(s.c_str() + i, &end, 16);
    if (end != s.c_str() + colon) continue;
    out[section].push_back(classify(address, s.substr(colon + 2)));
  }
  ::free(line);
  ::pclose(p);
  return out;
}

const char* flow_name(Flow f) {
  switch (f) {
    case Flow::plain: return "plain";
    case Flow::cond_jump: return "cond_jump";
    case Flow::jump: return "jump";
    case Flow::indirect_jump: return "indirect_jump";
    case Flow::call: return "call";
    case Flow::indirect_call: return "indirect_call";
    case Flow::ret: return "ret";
    case Flow::halt: return "halt";
    case Flow::invalid: return "invalid";
  }
  return "?";
}

struct Totals {
  uint64_t compared = 0, bad = 0, bad_decoded = 0, differences = 0;
};

int shown = 0;

void differ(const std::string& file, const Listed& l, const std::string& what) {
  if (shown++ < 20)
    std::printf("  %s: %#" PRIx64 " (%s): %s\n", file.c_str(), l.address, l.text.c_str(), what.c_str());
}

Totals compare(const std::string& file) {
  Totals t;
  auto data = covkit::util::read_file(file);
  if (!data) {
    std::printf("%s: %s\n", file.c_str(), data.error().message.c_str());
    t.differences = 1;
    return t;
  }
  std::span<const uint8_t> bytes = data->bytes();
  std::map<std::string, std::vector<Listed>> listing = objdump(file);
  for (const Section& sec : executable_sections(bytes)) {
    auto it = listing.find(sec.name);
    if (it == listing.end()) continue;
    const std::vector<Listed>& ls = it->second;
    for (size_t k = 0; k < ls.size(); ++k) {
      const Listed& l = ls[k];
      uint64_t next = k + 1 < ls.size() ? ls[k + 1].address : sec.addr + sec.size;
      if (l.address < sec.addr || next > sec.addr + sec.size || next <= l.address) continue;
      std::span<const uint8_t> at = bytes.subspan(sec.offset + (l.address - sec.addr));
      at = at.subspan(0, std::min<size_t>(at.size(), 15));
      std::optional<DecodedInsn> d = covkit::sample::decode_instruction(l.address, at);
      if (l.bad) {
        ++t.bad;
        t.bad_decoded += d.has_value();
        continue;
      }
      ++t.compared;
      if (!d) {
        ++t.differences;
        differ(file, l, "covkit cannot decode it");
        continue;
      }
      std::string why;
      if (d->size != next - l.address)
        why = "covkit decodes " + std::to_string(d->size) + " bytes, objdump " + std::to_string(next - l.address);
      else if (d->flow != l.flow)
        why = std::string("covkit's flow is ") + flow_name(d->flow) + ", objdump's " + flow_name(l.flow);
      else if (l.target && *l.target != d->target)
        why = "another target";
      if (!why.empty()) {
        ++t.differences;
        differ(file, l, why);
      }
    }
  }
  if (t.compared == 0) {
    std::printf("%s: objdump lists no instruction\n", file.c_str());
    t.differences = 1;
  }
  std::printf("%s: %" PRIu64 " instructions, %" PRIu64 " differences; objdump's (bad): %" PRIu64
              " (covkit decodes %" PRIu64 " of them)\n",
              file.c_str(), t.compared, t.differences, t.bad, t.bad_decoded);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  Totals all;
  for (int i = 1; i < argc; ++i) {
    Totals t = compare(argv[i]);
    all.compared += t.compared;
    all.differences += t.differences;
  }
  std::printf("total: %" PRIu64 " instructions compared, %" PRIu64 " differences\n", all.compared, all.differences);
  return all.differences ? 1 : 0;
}
