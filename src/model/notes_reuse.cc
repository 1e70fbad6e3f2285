#include "model/notes_reuse.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include "format/notes_layout.h"
#include "util/foreign_data.h"

namespace covkit::model {

Function copy_graph(const Function& fn) {
  Function c;
  c.name = fn.name;
  c.ident = fn.ident;
  c.lineno_checksum = fn.lineno_checksum;
  c.cfg_checksum = fn.cfg_checksum;
  c.artificial = fn.artificial;
  c.has_catch = fn.has_catch;
  c.source = fn.source;
  c.start_line = fn.start_line;
  c.start_column = fn.start_column;
  c.end_line = fn.end_line;
  c.end_column = fn.end_column;
  c.never_ran = fn.never_ran;
  c.blocks = fn.blocks;
  c.arcs = fn.arcs;
  c.counts = fn.counts;
  c.arc_lists = fn.arc_lists;
  c.location_list = fn.location_list;
  c.line_list = fn.line_list;
  // The same views, at the same offsets into the copy's arrays.
  auto rebase = [](auto view, const auto& from, auto& to) {
    using View = decltype(view);
    if (view.empty()) return View(to.data(), 0);
    return View(to.data() + (view.data() - from.data()), view.size());
  };
  for (Block& b : c.blocks) {
    b.succ = rebase(b.succ, fn.arc_lists, c.arc_lists);
    b.pred = rebase(b.pred, fn.arc_lists, c.arc_lists);
    b.locations = rebase(b.locations, fn.location_list, c.location_list);
  }
  for (BlockLocation& loc : c.location_list) loc.lines = rebase(loc.lines, fn.line_list, c.line_list);
  return c;
}

namespace {
constexpr size_t kMaxShapes = 4;  // kept per notes size
}  // namespace

// A notes file as read, with what its graphs were then: what another file
// of the same bytes but its varying words reads as.
struct NotesReuse::Shape {
  util::FileData file;  // its bytes (kept, not copied: a mapping or the copy read)
  format::NotesLayout layout;
  std::vector<size_t> varying;  // layout.varying_words()
  format::NotesFile notes;      // no functions (GCC >= 8 hands them all to the graphs)
  std::vector<SessionFunction> functions;
  std::vector<std::string> local_names;
};

NotesReuse::NotesReuse(const std::vector<format::ObjectFiles>& objects)
    : objects_(objects), group_of_(objects.size(), nullptr) {
  std::unordered_map<size_t, std::vector<size_t>> by_size;
  std::vector<size_t> sizes(objects.size(), 0);
  for (size_t i = 0; i < objects.size(); ++i) {
    struct stat st;
    if (::stat(objects[i].notes.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      sizes[i] = size_t(st.st_size);
      by_size[sizes[i]].push_back(i);
    }
  }
  // One run per size shared, one per other object; the largest first.
  struct Run {
    uint64_t bytes;
    const std::vector<size_t>* members;  // null: the one object `single`
    size_t single;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (!sizes[i]) {
      runs.push_back({0, nullptr, i});
      continue;
    }
    const std::vector<size_t>& same = by_size[sizes[i]];
    if (same.size() < 2) {
      runs.push_back({sizes[i], nullptr, i});
      continue;
    }
    if (same.front() != i) continue;
    runs.push_back({uint64_t(sizes[i]) * same.size(), &same, 0});
    SizeGroup& g = *groups_.emplace_back(std::make_unique<SizeGroup>());
    g.left = same.size();
    for (size_t m : same) group_of_[m] = &g;
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.bytes > b.bytes; });
  order_.reserve(objects.size());
  runs_.reserve(runs.size() + 1);
  for (const Run& r : runs) {
    runs_.push_back(order_.size());
    if (r.members)
      order_.insert(order_.end(), r.members->begin(), r.members->end());
    else
      order_.push_back(r.single);
  }
  runs_.push_back(order_.size());
}

NotesReuse::~NotesReuse() = default;

LoadedObject NotesReuse::load(size_t i) {
  const format::ObjectFiles& files = objects_[i];
  SizeGroup* const group = group_of_[i];
  if (!group) return load_object_files(files.notes, files.data, files.counts.get());
  SizeGroup& g = *group;
  // As load_object_files reads them (and, when they cannot be read, it
  // says why, as ever).
  auto notes_bytes = util::read_named_file(files.notes);
  if (!notes_bytes) {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (--g.left == 0) g.shapes.clear();
    return load_object_files(files.notes, files.data, files.counts.get());
  }
  util::note_data_file(files.notes, *notes_bytes);
  const std::span<const uint8_t> bytes = notes_bytes->bytes();
  LoadedObject obj;
  obj.notes_name = files.notes;
  obj.data_name = files.data;
  obj.notes_opened = true;
  obj.notes_mtime = notes_bytes->mtime();
  std::unique_lock<std::mutex> lock(g.mutex);
  const bool last = --g.left == 0;
  // Another of this size being read now is most likely the same code (its
  // size is): waited for, as reading it again would cost more.
  g.read.wait(lock, [&] { return !g.reading; });
  // Bytes that match a kept file's outside its varying words are framed as
  // it is (the records' tags and lengths are among the bytes compared): its
  // layout is theirs, and only the words' values are their own.
  auto same = std::find_if(g.shapes.begin(), g.shapes.end(), [&](const std::unique_ptr<Shape>& shape) {
    return format::same_but_varying(shape->file.bytes(), bytes, shape->varying);
  });
  if (same != g.shapes.end()) {
    // Copied under the lock (the last one may take the shape meanwhile);
    // the last one takes it (nobody else needs it: its graphs are this
    // object's).
    std::unique_ptr<Shape> taken;
    if (last) {
      taken = std::move(*same);
      g.shapes.clear();
      lock.unlock();
    }
    const Shape& shape = taken ? *taken : **same;
    const format::NotesLayout& layout = shape.layout;
    format::NotesFile nf = shape.notes;
    nf.stamp = layout.word_at(bytes, layout.stamp_offset);
    if (layout.checksum_offset) nf.checksum = layout.word_at(bytes, *layout.checksum_offset);
    obj.notes = std::move(nf);
    if (taken) {
      obj.functions = std::move(taken->functions);
      obj.local_names = std::move(taken->local_names);
    } else {
      obj.local_names = shape.local_names;
      obj.functions.reserve(shape.functions.size());
      for (const SessionFunction& f : shape.functions) obj.functions.emplace_back().fn = copy_graph(f.fn);
    }
    for (size_t k = 0; k < obj.functions.size(); ++k)
      obj.functions[k].fn.ident = layout.word_at(bytes, layout.ident_offsets[k]);
    if (lock.owns_lock()) lock.unlock();
    ++reused_;
  } else {
    // Read, and kept for the others when they can be read as it was (read
    // whole, every FUNCTION record a graph). Files of one size that are
    // not the same code are kept a few at most: each kept is a copy of
    // its graphs until the last of its size is read.
    const bool keep = !last && g.shapes.size() < kMaxShapes;
    g.reading = keep;
    if (last) g.shapes.clear();
    lock.unlock();
    // Whatever happens (an allocation failing), the others stop waiting.
    struct Done {
      SizeGroup& g;
      bool keep;
      ~Done() {
        if (!keep) return;
        {
          std::lock_guard<std::mutex> l(g.mutex);
          g.reading = false;
        }
        g.read.notify_all();
      }
    } done{g, keep};
    parse_notes(obj, bytes);
    std::unique_ptr<Shape> shape;
    const auto* nf = std::get_if<format::NotesFile>(&obj.notes);
    std::optional<format::NotesLayout> layout;
    if (keep && nf && !nf->error && nf->functions.empty()) layout = format::notes_layout(bytes);
    if (layout && obj.functions.size() == layout->ident_offsets.size()) {
      shape = std::make_unique<Shape>();
      shape->varying = layout->varying_words();
      shape->layout = std::move(*layout);
      shape->notes = *nf;
      shape->local_names = obj.local_names;
      shape->functions.reserve(obj.functions.size());
      for (const SessionFunction& f : obj.functions) shape->functions.emplace_back().fn = copy_graph(f.fn);
      shape->file = std::move(*notes_bytes);
    }
    if (shape) {
      std::lock_guard<std::mutex> l(g.mutex);
      if (g.left > 0) g.shapes.push_back(std::move(shape));  // else the others all came meanwhile
    }
  }
  load_data(obj, files.counts.get());
  return obj;
}

}  // namespace covkit::model
