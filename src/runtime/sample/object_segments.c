/* The segments (PT_LOAD) of the loaded objects, for block stepping's
 * look-ahead interpreter (block_step.c): code and data there are mapped
 * while the object is loaded, so the interpreter reads them in place
 * instead of copying each line with process_vm_readv (~2.5 us a call on
 * this VM, ~9 a vector on bzip2: its code, its globals, libc's). Memory
 * elsewhere (the heap, mappings of the program's own) is still copied: a
 * load there may fault.
 *
 * The table is built outside signal context (dl_iterate_phdr takes the
 * loader's lock) at the image's start, in a fork's child, before a thread
 * starts (objects dlopened since), and after each dlclose. A handler reads
 * it under a sequence count and only while no dlclose is running: the
 * segments of an object being closed may be unmapped at any moment. An
 * object dlopened since the last build is simply not listed (its code is
 * copied as before). */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>

#include "sample_runtime.h"

#define SEGMENTS 256

static struct object_segment {
  uint64_t lo, hi;
} segments[SEGMENTS];
static uint32_t nsegments;
static unsigned sequence; /* odd while the table is written */
static int closing;       /* dlclose calls running */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

static int add_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uint32_t *n = data;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || ph->p_memsz == 0) continue;
    if (*n == SEGMENTS) return 1; /* the rest stay unlisted: copied */
    uint64_t lo = info->dlpi_addr + ph->p_vaddr;
    __atomic_store_n(&segments[*n].lo, lo, __ATOMIC_RELAXED);
    __atomic_store_n(&segments[*n].hi, lo + ph->p_memsz, __ATOMIC_RELAXED);
    ++*n;
  }
  return 0;
}

CKS_FN void cks_object_segments_build(void) {
  if (!cks_cfg.branch_mode) return;
  pthread_mutex_lock(&build_lock);
  __atomic_add_fetch(&sequence, 1, __ATOMIC_ACQ_REL); /* odd: readers keep off */
  uint32_t n = 0;
  dl_iterate_phdr(add_object, &n);
  __atomic_store_n(&nsegments, n, __ATOMIC_RELAXED);
  __atomic_add_fetch(&sequence, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&build_lock);
}

CKS_FN int cks_object_segment(uint64_t addr, uint64_t *lo, uint64_t *hi) {
  unsigned seq = __atomic_load_n(&sequence, __ATOMIC_ACQUIRE);
  if ((seq & 1) || __atomic_load_n(&closing, __ATOMIC_ACQUIRE)) return 0;
  int found = 0;
  uint32_t n = __atomic_load_n(&nsegments, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < n && !found; i++) {
    uint64_t l = __atomic_load_n(&segments[i].lo, __ATOMIC_RELAXED), h = __atomic_load_n(&segments[i].hi, __ATOMIC_RELAXED);
    if (l <= addr && addr < h) {
      *lo = l;
      *hi = h;
      found = 1;
    }
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return found && __atomic_load_n(&sequence, __ATOMIC_RELAXED) == seq && !__atomic_load_n(&closing, __ATOMIC_ACQUIRE);
}

/* The program's dlclose: no segment is read in place while it runs (it may
 * unmap one), and the table is built again after it. */
typedef int (*dlclose_fn)(void *);

CKS_API int dlclose(void *handle) {
  static dlclose_fn real;
  if (!real) real = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
  if (!real) return -1;
  __atomic_add_fetch(&closing, 1, __ATOMIC_ACQ_REL);
  int r = real(handle);
  cks_object_segments_build();
  __atomic_sub_fetch(&closing, 1, __ATOMIC_ACQ_REL);
  return r;
}
