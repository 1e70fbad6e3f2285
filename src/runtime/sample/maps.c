/* The executable segments of every loaded object, with the build-id read
 * from the object's own PT_NOTE in memory (the file may change after the
 * run). Written at the image's start, after a fork, when a thread starts
 * and at exit; readers keep the union (a mapping is identified by its
 * range and path). Not async-signal-safe (dl_iterate_phdr takes the loader
 * lock): never called from a handler. */
#include <elf.h>
#include <stddef.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample_runtime.h"

CKS_FN size_t cks_build_id(const struct dl_phdr_info *info, unsigned char *out) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *n;
      const char *desc = name + ((n->n_namesz + 3) & ~3u);
      const char *next = desc + ((n->n_descsz + 3) & ~3u);
      if (next > end || next <= p) break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          n->n_descsz <= CKS_MAX_BUILD_ID) {
        memcpy(out, desc, n->n_descsz);
        return n->n_descsz;
      }
      p = next;
    }
  }
  return 0;
}

static int one_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  uint64_t buf[(CKS_MAP_FIXED + CKS_MAX_BUILD_ID + 4096 + 8) / 8];
  char *b = (char *)buf;
  char path[4096];
  const char *name = info->dlpi_name;
  if (!name || !*name) { /* the main program */
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    name = path;
  }
  size_t path_size = strnlen(name, 4095) + 1;
  unsigned char id[CKS_MAX_BUILD_ID];
  uint32_t id_size = (uint32_t)cks_build_id(info, id);
  struct stat st;
  uint64_t dev = 0, ino = 0;
  if (stat(name, &st) == 0) {
    dev = st.st_dev;
    ino = st.st_ino;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0) continue;
    memset(buf, 0, sizeof buf);
    uint64_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz, off = ph->p_offset;
    uint32_t ps = (uint32_t)path_size;
    memcpy(b + CKS_MAP_START, &start, 8);
    memcpy(b + CKS_MAP_END, &end, 8);
    memcpy(b + CKS_MAP_OFFSET, &off, 8);
    memcpy(b + CKS_MAP_DEV, &dev, 8);
    memcpy(b + CKS_MAP_INODE, &ino, 8);
    memcpy(b + CKS_MAP_BUILD_ID_SIZE, &id_size, 4);
    memcpy(b + CKS_MAP_PATH_SIZE, &ps, 4);
    memcpy(b + CKS_MAP_FIXED, id, id_size);
    memcpy(b + CKS_MAP_FIXED + id_size, name, path_size - 1);
    size_t total = (CKS_MAP_FIXED + id_size + path_size + 7) & ~(size_t)7;
    cks_write_record(buf, (uint32_t)total, CKS_KIND_MAPPING, 0);
  }
  return 0;
}

/* The loader counts objects added and removed: a changed count means a
 * dlopen or dlclose since the last look. */
static unsigned long long seen_adds, seen_subs;
static int changed;

static int probe(struct dl_phdr_info *info, size_t size, void *data) {
  (void)data;
  if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    changed = 1;
    return 1;
  }
  changed = info->dlpi_adds != seen_adds || info->dlpi_subs != seen_subs;
  seen_adds = info->dlpi_adds;
  seen_subs = info->dlpi_subs;
  return 1; /* the first object tells */
}

CKS_FN void cks_write_mappings(void) {
  dl_iterate_phdr(probe, NULL); /* the counts these mappings are of */
  dl_iterate_phdr(one_object, NULL);
}

CKS_FN void cks_refresh_mappings(void) {
  dl_iterate_phdr(probe, NULL);
  if (changed) cks_write_mappings();
}
