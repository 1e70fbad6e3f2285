#include "model/notes_reuse.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include "format/notes_layout.h"
#include "util/foreign_data.h"

namespace covkit::model {

namespace {
constexpr size_t kMaxShapes = 4;  // kept per notes size
}  // namespace

// A notes file as read, kept for the others of its size: those of the
// same bytes outside its varying words are the same code.
struct NotesReuse::Shape {
  util::FileData file;  // its bytes (kept, not copied: a mapping or the copy read)
  format::NotesLayout layout;
  std::vector<size_t> varying;  // layout.varying_words()
  format::NotesFile notes;      // no functions (GCC >= 8 hands them all to the graphs)
  std::vector<std::string> local_names;
  // Graphs an object of these notes gave back once its session was done,
  // as the notes gave them, for the next one to take.
  bool have_graphs = false;
  std::vector<SessionFunction> graphs;
};

NotesReuse::NotesReuse(const std::vector<format::ObjectFiles>& objects)
    : objects_(objects), group_of_(objects.size(), nullptr), shape_of_(objects.size(), nullptr) {
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
    std::vector<std::unique_ptr<Shape>> gone;
    {
      std::lock_guard<std::mutex> lock(g.mutex);
      if (--g.left == 0) gone.swap(g.shapes);
    }
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
  // Bytes that match a kept file's outside its varying words are framed as
  // it is (the records' tags and lengths are among the bytes compared): its
  // layout is theirs, and only the words' values are their own.
  auto same = std::find_if(g.shapes.begin(), g.shapes.end(), [&](const std::unique_ptr<Shape>& shape) {
    return format::same_but_varying(shape->file.bytes(), bytes, shape->varying);
  });
  Shape* const shape = same != g.shapes.end() ? same->get() : nullptr;
  if (shape && shape->have_graphs) {
    // Another object's graphs, as the notes gave them: this object's,
    // with its own idents, stamp and checksum.
    shape->have_graphs = false;
    obj.functions = std::move(shape->graphs);
    obj.local_names = shape->local_names;
    format::NotesFile nf = shape->notes;
    const format::NotesLayout& layout = shape->layout;
    nf.stamp = layout.word_at(bytes, layout.stamp_offset);
    if (layout.checksum_offset) nf.checksum = layout.word_at(bytes, *layout.checksum_offset);
    obj.notes = std::move(nf);
    for (size_t k = 0; k < obj.functions.size(); ++k)
      obj.functions[k].fn.ident = layout.word_at(bytes, layout.ident_offsets[k]);
    // The last of this size destroys the shape below: no pointer to it is
    // left (wants_back/give_back look at left == 0 first, but a dangling
    // pointer is one change away from a use after free).
    shape_of_[i] = last ? nullptr : shape;
    std::vector<std::unique_ptr<Shape>> gone;  // the last of this size: nobody needs the notes kept
    if (last) gone.swap(g.shapes);
    lock.unlock();
    ++reused_;
  } else {
    // Read: the first of these notes, or one whose graphs are still in
    // another's session. Kept for the others when they can be read as it
    // was (read whole, every FUNCTION record a graph). Files of one size
    // that are not the same code are kept a few at most.
    shape_of_[i] = last ? nullptr : shape;  // the last of its size destroys it below
    const bool keep = !shape && !last && g.shapes.size() < kMaxShapes;
    std::vector<std::unique_ptr<Shape>> gone;
    if (last) gone.swap(g.shapes);
    lock.unlock();
    gone.clear();
    parse_notes(obj, bytes);
    const auto* nf = std::get_if<format::NotesFile>(&obj.notes);
    std::optional<format::NotesLayout> layout;
    if (keep && nf && !nf->error && nf->functions.empty()) layout = format::notes_layout(bytes);
    if (layout && obj.functions.size() == layout->ident_offsets.size()) {
      auto kept = std::make_unique<Shape>();
      kept->varying = layout->varying_words();
      kept->layout = std::move(*layout);
      kept->notes = *nf;
      kept->local_names = obj.local_names;
      kept->file = std::move(*notes_bytes);
      std::lock_guard<std::mutex> l(g.mutex);
      if (g.left > 0) {  // else the others all came meanwhile
        shape_of_[i] = kept.get();
        g.shapes.push_back(std::move(kept));
      }
    }
  }
  load_data(obj, files.counts.get());
  return obj;
}

bool NotesReuse::wants_back(size_t i) {
  SizeGroup* const group = group_of_[i];
  if (!group) return false;
  std::lock_guard<std::mutex> lock(group->mutex);
  return group->left > 0 && shape_of_[i] && !shape_of_[i]->have_graphs;
}

void NotesReuse::give_back(size_t i, std::vector<SessionFunction>&& graphs) {
  std::vector<SessionFunction> dropped = std::move(graphs);
  SizeGroup* const group = group_of_[i];
  if (!group || dropped.empty()) return;
  std::lock_guard<std::mutex> lock(group->mutex);
  Shape* const shape = shape_of_[i];
  shape_of_[i] = nullptr;
  if (group->left == 0 || !shape || shape->have_graphs || dropped.size() != shape->layout.ident_offsets.size()) return;
  shape->graphs = std::move(dropped);
  shape->have_graphs = true;
}

}  // namespace covkit::model
