/* Files in the trace directory: created only with O_EXCL (never an existing
 * file or a symlink planted there, mode 0644 under the process's umask) and
 * grown only within RLIMIT_FSIZE and the space the file system grants, so
 * that neither SIGXFSZ nor SIGBUS (a full disk under a mapped page) can reach
 * the traced program. */
#ifndef CKT_TRACE_FILES_H
#define CKT_TRACE_FILES_H

#include "ckt_base.h"

/* <dir>/<name> into out; 0 if it does not fit. */
CKT_FN int ckt_dir_path(char *out, size_t size, const char *name);
/* Creates <dir>/<stem><suffix>, else <dir>/<stem>.<n><suffix> for the
 * smallest free n >= 1 (up to CKT_MAX_SEQUENCE), with open flags `flags`
 * besides O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC. Returns the descriptor (-1 on
 * failure, errno set) and the sequence used in *seq (0: none). */
CKT_FN int ckt_file_create(const char *stem, const char *suffix, int flags, unsigned *seq);
/* 1 when fd is open on the file `dev`, `ino` (still the file we created:
 * never truncate or write someone else's). */
CKT_FN int ckt_file_is(int fd, uint64_t dev, uint64_t ino);
/* Opens again, with open flags `flags` besides O_NOFOLLOW|O_CLOEXEC, the
 * file ckt_file_create made as <stem>[.<seq>]<suffix>, when it is still the
 * same file (`dev`, `ino`): a program that closes every descriptor it did
 * not open itself (daemons, closefrom, close_range) closes ours too, and
 * may reuse their numbers for files of its own. The descriptor is moved to
 * CKT_REOPEN_MIN_FD or above. -1 when the file is gone or another one. */
#define CKT_REOPEN_MIN_FD 100
CKT_FN int ckt_file_reopen(const char *stem, const char *suffix, unsigned seq, int flags, uint64_t dev,
                           uint64_t ino);
/* 1 when a file may grow to `end` bytes under RLIMIT_FSIZE. */
CKT_FN int ckt_file_fits(uint64_t end);
/* Makes [off, off + len) of fd allocated (fallocate, else zeros written), so
 * that stores into a MAP_SHARED mapping of it cannot fault for want of
 * space. 0 when the limit or the disk says no. */
CKT_FN int ckt_file_reserve(int fd, uint64_t off, uint64_t len);

#endif
