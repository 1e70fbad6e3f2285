/* IMAGE.meta: the process image's text metadata, appended one write per line. */
#ifndef CKT_PROCESS_META_H
#define CKT_PROCESS_META_H

#include <sys/types.h>

#include "text_line.h"

extern pid_t ckt_pid, ckt_ppid;       /* cached: getpid() is a syscall */
extern char ckt_exe[CKT_PATH_MAX];    /* readlink /proc/self/exe */
extern char ckt_image[32];            /* this image's file stem: "<pid>" or "<pid>.<n>" */

/* Creates the image's .meta under a free name (sets ckt_image) and writes the
 * header lines (magic, pid, ppid, exe, clock). 0 on failure. */
CKT_FN int ckt_meta_open(void);
/* Appends l + '\n' with one write (nothing once the file cannot grow). */
CKT_FN void ckt_meta_put(struct ckt_line *l);
CKT_FN void ckt_meta_calib(uint64_t *counter, uint64_t *ns);
/* "thread <tid> <name>": the calling thread's name (PR_GET_NAME), or for
 * another thread of this process its /proc comm. */
CKT_FN void ckt_meta_thread(pid_t tid);
CKT_FN void ckt_meta_other_thread(pid_t tid);
CKT_FN void ckt_meta_end(uint64_t when);
/* "hook mcount" / "hook fentry": which -pg hook raised events (once per
 * image; -finstrument-functions traces have no such line). */
enum { CKT_HOOK_MCOUNT = 1, CKT_HOOK_FENTRY = 2, CKT_HOOK_PATCH = 4 /* patched entries (patch.c) */,
       CKT_HOOK_PLT = 8 /* library calls through a hooked PLT slot (plt_hooks.c) */ };
CKT_FN void ckt_meta_hook(unsigned hook);
/* "fork <when> <child>" appended to <parent_image>.meta (by the child). */
CKT_FN void ckt_meta_fork_to_parent(const char *parent_image, uint64_t when, pid_t child);

#endif
