/* <pid>.meta: the process's text metadata, appended one write per line. */
#ifndef CKT_PROCESS_META_H
#define CKT_PROCESS_META_H

#include <sys/types.h>

#include "text_line.h"

extern pid_t ckt_pid, ckt_ppid;       /* cached: getpid() is a syscall */
extern char ckt_exe[CKT_PATH_MAX];    /* readlink /proc/self/exe */

/* Creates <dir>/<ckt_pid>.meta and writes the header lines (magic, pid,
 * ppid, exe, clock). 0 on failure. */
CKT_FN int ckt_meta_open(void);
/* Appends l + '\n' with one write. */
CKT_FN void ckt_meta_put(struct ckt_line *l);
CKT_FN void ckt_meta_calib(uint64_t *counter, uint64_t *ns);
CKT_FN void ckt_meta_thread(pid_t tid);  /* "thread <tid> <comm of the calling thread>" */
CKT_FN void ckt_meta_end(uint64_t when);
/* "fork <when> <child>" appended to <dir>/<parent>.meta (by the child). */
CKT_FN void ckt_meta_fork_to_parent(pid_t parent, uint64_t when, pid_t child);
/* <dir>/<name>: 0 if it does not fit. */
CKT_FN int ckt_meta_path(char *out, size_t size, const char *name);

#endif
