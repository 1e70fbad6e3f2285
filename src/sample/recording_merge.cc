#include "sample/recording_merge.h"

#include <fmt/format.h>

namespace covkit::sample {

namespace {

void append(format::SampleRecording& into, format::SampleRecording&& from) {
  const uint32_t base = uint32_t(into.images.size());
  for (format::SampleImage& image : from.images) {
    image.id += base;
    into.images.push_back(std::move(image));
  }
  for (format::Sample& s : from.samples) {
    s.image += base;
    into.samples.push_back(std::move(s));
  }
  for (format::BlockHit& h : from.hits) into.hits.push_back({h.image + base, h.address});
  for (format::BlockHit& h : from.planted) into.planted.push_back({h.image + base, h.address});
  into.lost += from.lost;
  for (std::string& w : from.warnings) into.warnings.push_back(std::move(w));
  // One attached recording among others: dominators are no proof for any
  // of them (the analysis works on their union).
  into.attached = into.attached || from.attached;
  for (format::LeftOutImage& l : from.left_out) {
    bool known = false;
    for (const format::LeftOutImage& k : into.left_out) known = known || (k.path == l.path && k.build_id == l.build_id);
    if (!known) into.left_out.push_back(std::move(l));
  }
  for (format::UnplantedFunction& u : from.unplanted) {
    bool known = false;
    for (const format::UnplantedFunction& k : into.unplanted) known = known || (k.path == u.path && k.function == u.function);
    if (!known) into.unplanted.push_back(std::move(u));
  }
}

}  // namespace

format::SampleRecording merge_recordings(std::vector<format::SampleRecording> recordings) {
  if (recordings.empty()) return {};
  format::SampleRecording out = std::move(recordings.front());
  for (size_t i = 1; i < recordings.size(); ++i) {
    format::SampleRecording& r = recordings[i];
    if (r.mode != out.mode)
      out.warnings.push_back(fmt::format("recordings of different modes added together ({} and {})", out.mode, r.mode));
    append(out, std::move(r));
  }
  return out;
}

}  // namespace covkit::sample
