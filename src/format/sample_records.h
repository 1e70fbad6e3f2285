#pragma once
// What a sampling recording holds (`covkit sample record`, or perf's
// branch stacks imported), before any meaning is given to it: the processes
// sampled, the executable mappings of each, and what was seen, all in the
// absolute addresses of the process that saw it. src/sample/ turns these
// into coverage (CFG, path recovery, dominator inference); format/ only
// reads and writes them. Hardware branch stacks and the single-step
// emulation fill the same fields, so one analysis serves both.
#include <cstdint>
#include <string>
#include <vector>

namespace covkit::format {

// One executable file mapping of one process image (an exec starts a new
// image in the same pid, so samples refer to images, not pids).
struct SampleMapping {
  uint64_t start = 0, end = 0;  // [start, end) in the process
  uint64_t file_offset = 0;     // of `start` in the file
  std::string path;             // as the process mapped it
  std::string build_id;         // lower-case hex of NT_GNU_BUILD_ID; empty when the file has none
  uint64_t dev = 0, inode = 0;  // of the file when it was mapped (0: unknown), to tell a changed file
};

struct SampleImage {
  uint32_t id = 0;         // index in SampleRecording::images
  int32_t pid = 0;         // the process, for messages
  int32_t ppid = 0;        // its parent when the image started (a fork's child names its parent)
  uint64_t start_ns = 0;   // CLOCK_REALTIME when the image started
  bool ended = false;      // it ran its exit handlers (false: killed, crashed, or still running)
  std::string file;        // the file it was read from, for messages ("" when built in memory)
  std::string executable;  // /proc/PID/exe when recorded
  std::vector<SampleMapping> mappings;  // sorted by start
};

// A taken branch (a jump, call, return, or interrupt-free control transfer).
struct BranchPair {
  uint64_t from = 0, to = 0;
};

struct Sample {
  uint32_t image = 0;  // SampleImage::id
  int32_t tid = 0;
  uint64_t ip = 0;                   // where the thread was when the sample fired
  std::vector<BranchPair> branches;  // taken branches, OLDEST first (perf lists newest first)
  // The emulation's raw evidence: every instruction address single-stepped
  // after the sample fired, in order; empty for hardware samples.
  std::vector<uint64_t> steps;
  std::vector<uint64_t> stack;  // return addresses of the active frames, innermost first
  uint32_t stop = 0;            // why stepping stopped: CKS_SAMPLE_STOP_* of runtime/sample/sample_contract.h
};

// Breakpoint mode: the first instruction of a block (or a function) ran.
struct BlockHit {
  uint32_t image = 0;
  uint64_t address = 0;
};

// Breakpoint mode: an image the plan left alone, and why ("no line
// information", "a system library", "not named by --images").
struct LeftOutImage {
  std::string path;
  std::string build_id;
  std::string reason;
};

// Breakpoint mode: a function of a planted image that got no breakpoint,
// and why (its code could not be decoded completely).
struct UnplantedFunction {
  std::string path;  // the image
  std::string function;
  std::string reason;
};

struct SampleRecording {
  std::string mode;               // "branch", "pc", "breakpoint", "perf"
  uint64_t period_ns = 0;         // mean sampling period (0 for breakpoint mode)
  uint32_t vector_length = 0;     // taken branches per sample (branch mode)
  std::vector<std::string> command;
  std::string start_time;         // ISO 8601 UTC, when the recording started
  std::string covkit_version;     // of the covkit that wrote recording.json
  std::vector<SampleImage> images;
  std::vector<Sample> samples;
  std::vector<BlockHit> hits;
  // Breakpoint mode: every address a breakpoint was planted at, so that the
  // analysis can tell "planted and never hit" from "never planted".
  std::vector<BlockHit> planted;
  // Planted addresses a summary read counted without keeping them
  // (SampleDetail::summary: a recording's one-line summary needs their number).
  uint64_t planted_not_kept = 0;
  uint64_t lost = 0;              // samples the recorder had to drop
  std::vector<std::string> warnings;  // what went wrong while recording, one line each
  // Attached to a running process (--pid): what was seen ran in the window
  // of the recording, and what ran before is not known.
  bool attached = false;
  std::vector<LeftOutImage> left_out;
  std::vector<UnplantedFunction> unplanted;
  // Users other than covkit's whose data the recording holds (a sampled
  // process's owner, an imported perf.data's): the files it names are read
  // with their rights too when it is read (util/foreign_data.h), as they
  // were when it was written. The writer adds the owners noted so far.
  std::vector<uint32_t> data_owners;
};

}  // namespace covkit::format
