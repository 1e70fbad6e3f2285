#pragma once
// A report's objects, each read as load_object_files reads it, but notes
// that another object of the report already read are not read again. A
// source compiled with the same options into several programs (zstd's tests
// link the library's files into each: 39% of its notes' bytes) has notes
// that differ only in the stamp, the checksum and the functions' idents
// (format/notes_layout.h): once the first one's session is done, its
// graphs, put back as its notes gave them (GcovSession::take_notes_graphs),
// are the next one's, with their own idents, which is what reading them
// gives (the reader and the graphs see nothing of those words but the
// values).
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "format/object_files.h"
#include "model/gcov_session.h"

namespace covkit::model {

class NotesReuse {
 public:
  // Only objects whose notes file has the size of another's can share
  // (looked at here, once). `objects` must outlive this.
  explicit NotesReuse(const std::vector<format::ObjectFiles>& objects);
  NotesReuse(const NotesReuse&) = delete;
  NotesReuse& operator=(const NotesReuse&) = delete;
  ~NotesReuse();

  // What load_object_files(f.notes, f.data, f.counts) returns for the
  // object f = objects[i]. Thread-safe; each object loaded once.
  LoadedObject load(size_t i);

  // Whether another object may take object i's graphs once its session is
  // done (an object of its notes is still to be loaded).
  bool wants_back(size_t i);
  // Object i's graphs as its notes gave them (GcovSession::take_notes_graphs),
  // for the next object of the same notes to take instead of reading its
  // own; dropped when none is left, or when they are empty.
  void give_back(size_t i, std::vector<SessionFunction>&& graphs);

  // The objects in the order to load them, in runs: the objects of one
  // size are one run, loaded one after the other on one thread (each
  // object's session is done, and its graphs given back, before the next
  // is loaded); every other object is a run of its own. The runs, largest
  // notes first (the last to start are then the small ones, and the
  // threads end together).
  const std::vector<size_t>& order() const { return order_; }
  // Run r is order()[runs()[r] .. runs()[r + 1]); runs().size() - 1 runs.
  const std::vector<size_t>& runs() const { return runs_; }

  // How many objects' graphs were taken from another's rather than read.
  size_t reused() const { return reused_.load(); }

 private:
  struct Shape;  // notes read, kept for the others of their size
  struct SizeGroup {
    std::mutex mutex;
    size_t left = 0;  // objects of this size not loaded yet
    std::vector<std::unique_ptr<Shape>> shapes;
  };
  const std::vector<format::ObjectFiles>& objects_;
  std::vector<SizeGroup*> group_of_;  // per object; null when no other has its size
  std::vector<Shape*> shape_of_;      // per object: the kept notes it is the same as (under its group's lock)
  std::vector<std::unique_ptr<SizeGroup>> groups_;
  std::vector<size_t> order_;
  std::vector<size_t> runs_;
  std::atomic<size_t> reused_{0};
};

}  // namespace covkit::model
