#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/completion_scripts.h"

namespace covkit::cli {

namespace {

// A bash word in single quotes.
std::string bash_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

const char* bash_kind(ValueKind kind) {
  switch (kind) {
    case ValueKind::kFile: return "file";
    case ValueKind::kDirectory: return "dir";
    case ValueKind::kProcess: return "pid";
    case ValueKind::kChoice: return "choice";
    case ValueKind::kNone: return "";
    case ValueKind::kWord: return "word";
  }
  return "word";
}

// "file", or "choice:a,b,c".
std::string bash_value(ValueKind kind, const std::vector<std::string>& choices) {
  std::string out = bash_kind(kind);
  if (kind == ValueKind::kChoice) out += ":" + fmt::format("{}", fmt::join(choices, ","));
  return out;
}

// The fixed part: how a command line is read and each kind of value completed.
constexpr const char* kBashFunctions = R"(
# The kind of value $1 (file, dir, pid, word, choice:A,B,C), for $2.
_covkit_values() {
  local IFS=$'\n'
  case $1 in
    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$2")) ;;
    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$2")) ;;
    pid)
      local p pids=()
      for p in /proc/[0-9]*; do pids+=("${p#/proc/}"); done
      COMPREPLY=($(compgen -W "${pids[*]}" -- "$2")) ;;
    choice:*) IFS=,; COMPREPLY=($(compgen -W "${1#choice:}" -- "$2")) ;;
    *) COMPREPLY=() ;;
  esac
}

# The program (and its arguments) from word $1 on: its own completion.
_covkit_program() {
  if declare -F _command_offset >/dev/null; then
    _command_offset "$1"
  elif (($1 == COMP_CWORD)); then
    local IFS=$'\n'
    COMPREPLY=($(compgen -c -- "${COMP_WORDS[COMP_CWORD]}" | sort -u))
  else
    _covkit_values file "${COMP_WORDS[COMP_CWORD]}"
  fi
}

_covkit() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]-}
  local path=covkit i=1 w nargs=0 dashdash=0
  # Started under a gcov name, covkit is covkit gcov.
  case ${COMP_WORDS[0]##*/} in
    gcov | gcov-[0-9]* | *-gcov | *-gcov-[0-9]*) path="covkit gcov" ;;
  esac
  # Which command the words before the current one name, and how many free
  # arguments they hold (bash splits --opt=value into three words).
  while ((i < COMP_CWORD)); do
    w=${COMP_WORDS[i]}
    if ((dashdash)) || [[ $w != -* || $w == - ]]; then
      if ((!dashdash && nargs == 0)) && [[ " ${_covkit_subs[$path]-} " == *" $w "* ]]; then
        path="$path $w"
      elif [[ -n ${_covkit_prog[$path]-} ]]; then
        _covkit_program "$i"
        return
      else
        ((nargs++))
      fi
    elif [[ $w == -- ]]; then
      dashdash=1
    elif [[ ${COMP_WORDS[i+1]-} == = ]]; then
      ((i += 2))
    elif [[ -n ${_covkit_vals["$path $w"]-} && -z ${_covkit_attached["$path $w"]-} ]]; then
      ((i++))
    fi
    ((i++))
  done
  # An option's value: "--opt value", "--opt=value".
  local opt=
  if [[ $cur == = ]]; then
    opt=$prev cur=
  elif [[ $prev == = ]]; then
    opt=${COMP_WORDS[COMP_CWORD-2]-}
  elif [[ $prev == -* ]] && ((!dashdash)) && [[ -z ${_covkit_attached["$path $prev"]-} ]]; then
    opt=$prev
  fi
  if [[ -n $opt && -n ${_covkit_vals["$path $opt"]-} ]]; then
    _covkit_values "${_covkit_vals["$path $opt"]}" "$cur"
    return
  fi
  if ((!dashdash)) && [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${_covkit_opts[$path]-}" -- "$cur"))
    return
  fi
  if ((!dashdash && nargs == 0)) && [[ -n ${_covkit_subs[$path]-} ]]; then
    COMPREPLY=($(compgen -W "${_covkit_subs[$path]}" -- "$cur"))
    return
  fi
  if [[ -n ${_covkit_prog[$path]-} ]]; then
    _covkit_program "$COMP_CWORD"
    return
  fi
  # The free argument number nargs; a kind ending in ... repeats.
  local kinds=(${_covkit_args[$path]-}) kind=
  if ((nargs < ${#kinds[@]})); then
    kind=${kinds[nargs]}
  elif ((${#kinds[@]})) && [[ ${kinds[-1]} == *... ]]; then
    kind=${kinds[-1]}
  fi
  _covkit_values "${kind%...}" "$cur"
}
complete -F _covkit covkit covkit-gcov
)";

}  // namespace

std::string bash_completion(const CommandSpec& covkit) {
  std::string subs, opts, vals, attached, args, prog;
  for (const CommandPath& p : command_paths(covkit)) {
    const CommandSpec& c = *p.spec;
    const std::string key = bash_quoted(p.path);
    if (!c.subcommands.empty()) {
      std::string names;
      for (const CommandSpec& s : c.subcommands) names += (names.empty() ? "" : " ") + s.name;
      subs += fmt::format("  [{}]={}\n", key, bash_quoted(names));
    }
    std::string names;
    for (const OptionSpec& o : c.options)
      for (const std::string& n : o.names) {
        names += (names.empty() ? "" : " ") + n;
        if (o.value == ValueKind::kNone) continue;
        vals += fmt::format("  [{}]={}\n", bash_quoted(p.path + " " + n), bash_quoted(bash_value(o.value, o.choices)));
        if (o.attached_only) attached += fmt::format("  [{}]=1\n", bash_quoted(p.path + " " + n));
      }
    if (!names.empty()) opts += fmt::format("  [{}]={}\n", key, bash_quoted(names));
    std::string kinds;
    for (const ArgumentSpec& a : c.arguments)
      kinds += fmt::format("{}{}{}", kinds.empty() ? "" : " ", bash_value(a.kind, a.choices), a.repeatable ? "..." : "");
    if (!kinds.empty()) args += fmt::format("  [{}]={}\n", key, bash_quoted(kinds));
    if (c.runs_program) prog += fmt::format("  [{}]=1\n", key);
  }
  return fmt::format(
      "# bash completion for covkit: generated by `covkit completion bash` from covkit's\n"
      "# own command-line definitions (do not edit; regenerate).\n"
      "#\n"
      "# For each command (\"covkit\", \"covkit trace\", \"covkit trace record\"): its\n"
      "# subcommands, its options, what each option's value is (file, dir, pid,\n"
      "# word, choice:A,B,C; attached: only as -pVALUE), its free arguments' kinds\n"
      "# (a trailing ... repeats) and whether a program and its arguments follow.\n"
      "declare -gA _covkit_subs=(\n{})\n"
      "declare -gA _covkit_opts=(\n{})\n"
      "declare -gA _covkit_vals=(\n{})\n"
      "declare -gA _covkit_attached=(\n{})\n"
      "declare -gA _covkit_args=(\n{})\n"
      "declare -gA _covkit_prog=(\n{})\n"
      "{}",
      subs, opts, vals, attached, args, prog, kBashFunctions);
}

}  // namespace covkit::cli
