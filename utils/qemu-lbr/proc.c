/*===- proc.c - process identity, mappings and perf records ------*- C -*-===*
 *
 * Everything that turns the emulated process into the non-sample records a
 * kernel would give `perf record`: COMM (exec) and MMAP2 for the executable
 * and its interpreter when the guest starts, MMAP2 for every executable
 * file mapping the guest makes later (ld.so mapping libraries), FORK when
 * the guest forks or starts a thread, EXIT when it ends. Records go to
 * OUTDIR/events.PID.bin in the layout of a perf.data data section, with the
 * sample_id trailer {pid, tid, time} that sample_id_all adds for
 * sample_type IP|TID|TIME|PERIOD|BRANCH_STACK; the lbr-record wrapper adds
 * the file header. At exit the plugin also writes OUTDIR/truth.PID.txt
 * (truth.c) and OUTDIR/dsos.PID.txt (build-id and path of every mapped
 * file, for the BUILD_ID header feature).
 *
 * The executable and ld.so are loaded by QEMU itself, not by guest
 * syscalls, and QEMU's host mappings merge adjacent segments, so their
 * MMAP2 records are rebuilt from the ELF program headers exactly as the
 * kernel would emit them: one per executable PT_LOAD, page aligned,
 * pgoff = p_offset & ~0xfff. Libraries are seen through the guest's own
 * mmap(PROT_EXEC) calls, whose file is found through /proc/self/fd (qemu-user
 * passes guest descriptors through unchanged).
 *
 *===----------------------------------------------------------------------===*/
#include "lbr.h"
#include "qemu_plugin_api.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* perf ABI values used here (include/uapi/linux/perf_event.h and
 * tools/lib/perf/include/perf/event.h). */
enum {
  REC_COMM = 3,
  REC_EXIT = 4,
  REC_FORK = 7,
  REC_SAMPLE = 9,
  REC_MMAP2 = 10,
  REC_FINISHED_ROUND = 68,
  MISC_USER = 2,
  MISC_COMM_EXEC = 1 << 13,
};

/* Records between two FINISHED_ROUND markers; the stream is time-ordered,
 * so any spacing is valid and this one bounds perf's reordering queue. */
#define ROUND_RECORDS 4096
/* Small enough that a guest killed by a signal, which skips the plugin's
 * exit callback in qemu-user 7.2, loses few samples. */
#define OUTBUF_SIZE (256u << 10)

/* Syscall numbers of the guest ABI (x86-64 / AArch64 generic). */
struct sysnums {
  int64_t mmap, clone, fork, vfork, clone3, execve, execveat, exit;
};
static const struct sysnums X86_64 = {9, 56, 57, 58, 435, 59, 322, 60};
static const struct sysnums AARCH64 = {222, 220, -1, -1, 435, 221, 281, 93};
#define SYS (G.is_x86 ? &X86_64 : &AARCH64)

#define CLONE_THREAD_FLAG 0x00010000

static int gettid_(void) { return (int)syscall(SYS_gettid); }

/*--- output buffer ---------------------------------------------------------*/

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0)
      return; /* disk full: the wrapper sees a short file and says so */
    p += w;
    n -= (size_t)w;
  }
}

/* The events file is opened for each flush (every 256 KiB), not kept
 * open: a guest that closes every descriptor, or forks, cannot disturb it. */
void out_flush(void) {
  if (G.buflen && G.events_path[0]) {
    int fd = open(G.events_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      write_all(fd, G.buf, G.buflen);
      close(fd);
    }
  }
  G.buflen = 0;
}

void out_record(const void *rec, size_t size) {
  if (G.buflen + size > G.bufcap)
    out_flush();
  memcpy(G.buf + G.buflen, rec, size);
  G.buflen += size;
  if (++G.records_since_round >= ROUND_RECORDS) {
    uint32_t round[2] = {REC_FINISHED_ROUND, 8u << 16};
    G.records_since_round = 0;
    if (G.buflen + 8 > G.bufcap)
      out_flush();
    memcpy(G.buf + G.buflen, round, 8);
    G.buflen += 8;
  }
}

static void open_events(void) {
  snprintf(G.events_path, sizeof(G.events_path), "%s/events.%d.bin", G.outdir,
           G.pid);
  int fd = open(G.events_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    char msg[PATH_MAX + 64];
    snprintf(msg, sizeof(msg), "lbr plugin: cannot create %s\n", G.events_path);
    qemu_plugin_outs(msg);
    G.events_path[0] = '\0';
  } else {
    close(fd);
  }
  if (!G.buf) {
    G.buf = malloc(OUTBUF_SIZE);
    if (!G.buf)
      abort();
    G.bufcap = OUTBUF_SIZE;
  }
  G.buflen = 0;
  G.records_since_round = 0;
}

/* A little record builder: header, then u32/u64/string pieces. */
struct rec {
  uint8_t b[PATH_MAX + 256];
  size_t n;
};

static void rec_begin(struct rec *r, uint32_t type, uint16_t misc) {
  memcpy(r->b, &type, 4);
  memcpy(r->b + 4, &misc, 2);
  r->n = 8;
}
static void rec_u32(struct rec *r, uint32_t v) {
  memcpy(r->b + r->n, &v, 4);
  r->n += 4;
}
static void rec_u64(struct rec *r, uint64_t v) {
  memcpy(r->b + r->n, &v, 8);
  r->n += 8;
}
/* NUL-terminated and zero-padded to 8 bytes, as the kernel writes names. */
static void rec_str(struct rec *r, const char *s) {
  size_t len = strlen(s);
  if (len > PATH_MAX - 1)
    len = PATH_MAX - 1;
  size_t padded = (len + 1 + 7) & ~(size_t)7;
  memcpy(r->b + r->n, s, len);
  memset(r->b + r->n + len, 0, padded - len);
  r->n += padded;
}
/* The sample_id_all trailer for our sample_type: pid, tid, time. */
static void rec_end(struct rec *r, int pid, int tid, uint64_t time) {
  rec_u32(r, (uint32_t)pid);
  rec_u32(r, (uint32_t)tid);
  rec_u64(r, time);
  uint16_t size = (uint16_t)r->n;
  memcpy(r->b + 6, &size, 2);
  out_record(r->b, r->n);
}

void emit_sample(struct vcpu *v, uint64_t ip, uint64_t period, uint64_t time) {
  if (!v->tid)
    v->tid = gettid_();
  /* header, ip, pid/tid, time, period, [callchain: nr, marker, ip, return
   * addresses innermost first], nr, entries (newest first) */
  uint64_t rec[6 + 2 + CALLCHAIN_MAX + 3 * MAX_DEPTH];
  uint32_t nr = v->lbr_count;
  size_t w = 1;
  rec[w++] = ip;
  rec[w++] = (uint64_t)(uint32_t)G.pid | ((uint64_t)(uint32_t)v->tid << 32);
  rec[w++] = time;
  rec[w++] = period;
  if (G.callchain) {
    /* As the kernel's user-mode frame-pointer unwinder lays it out: the
     * PERF_CONTEXT_USER marker, the IP, then each frame's return address,
     * at most CALLCHAIN_MAX addresses. */
    size_t n_at = w++;
    rec[w++] = PERF_CONTEXT_USER;
    rec[w++] = ip;
    uint32_t k = v->shadow_n;
    while (k > 0 && w - n_at - 2 < CALLCHAIN_MAX)
      rec[w++] = v->shadow[--k];
    rec[n_at] = w - n_at - 1;
  }
  rec[w++] = nr;
  uint32_t slot = v->lbr_head;
  for (uint32_t i = 0; i < nr; ++i) {
    const struct lbr_slot *s = &v->ring[slot];
    rec[w++] = s->from;
    rec[w++] = s->to;
    rec[w++] = s->flags;
    slot = (slot + G.depth - 1) % G.depth;
  }
  uint32_t hdr[2] = {REC_SAMPLE, MISC_USER | ((uint32_t)(w * 8) << 16)};
  memcpy(&rec[0], hdr, 8);
  out_record(rec, w * 8);
  ++G.samples;
}

static void emit_comm(int tid, uint64_t time) {
  struct rec r;
  rec_begin(&r, REC_COMM, MISC_COMM_EXEC);
  rec_u32(&r, (uint32_t)G.pid);
  rec_u32(&r, (uint32_t)tid);
  rec_str(&r, G.comm);
  rec_end(&r, G.pid, tid, time);
}

/* FORK and EXIT share one layout: pid, ppid, tid, ptid, time. */
static void emit_task(uint32_t type, int pid, int ppid, int tid, int ptid,
                      uint64_t time) {
  struct rec r;
  rec_begin(&r, type, 0);
  rec_u32(&r, (uint32_t)pid);
  rec_u32(&r, (uint32_t)ppid);
  rec_u32(&r, (uint32_t)tid);
  rec_u32(&r, (uint32_t)ptid);
  rec_u64(&r, time);
  rec_end(&r, pid, tid, time);
}

static void emit_mmap2(const struct mapping *m, const struct stat *st,
                       uint32_t prot, uint32_t flags, uint64_t time) {
  struct rec r;
  rec_begin(&r, REC_MMAP2, MISC_USER);
  rec_u32(&r, (uint32_t)G.pid);
  rec_u32(&r, (uint32_t)G.pid);
  rec_u64(&r, m->start);
  rec_u64(&r, m->len);
  rec_u64(&r, m->pgoff);
  rec_u32(&r, st ? major(st->st_dev) : 0);
  rec_u32(&r, st ? minor(st->st_dev) : 0);
  rec_u64(&r, st ? (uint64_t)st->st_ino : 0);
  rec_u64(&r, 0); /* ino_generation */
  rec_u32(&r, prot);
  rec_u32(&r, flags);
  rec_str(&r, m->path);
  rec_end(&r, G.pid, G.pid, time);
}

/*--- ELF -------------------------------------------------------------------*/

#define MAX_LOADS 32

struct elf_image {
  uint16_t type, machine;
  uint64_t entry;
  int nload;
  Elf64_Phdr load[MAX_LOADS];
  char interp[PATH_MAX];
  uint8_t buildid[20];
  int buildid_len;
};

static int read_at(int fd, void *dst, size_t n, uint64_t off) {
  return pread(fd, dst, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* Reads what we need from an ELF64 little-endian file. */
static int elf_read(int fd, struct elf_image *img) {
  memset(img, 0, sizeof(*img));
  Elf64_Ehdr eh;
  if (read_at(fd, &eh, sizeof(eh), 0) != 0 ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
    return -1;
  img->type = eh.e_type;
  img->machine = eh.e_machine;
  img->entry = eh.e_entry;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (read_at(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != 0)
      return -1;
    if (ph.p_type == PT_LOAD && img->nload < MAX_LOADS) {
      img->load[img->nload++] = ph;
    } else if (ph.p_type == PT_INTERP && ph.p_filesz < PATH_MAX) {
      if (read_at(fd, img->interp, ph.p_filesz, ph.p_offset) != 0)
        img->interp[0] = '\0';
      img->interp[ph.p_filesz < PATH_MAX ? ph.p_filesz : PATH_MAX - 1] = 0;
    } else if (ph.p_type == PT_NOTE && !img->buildid_len &&
               ph.p_filesz <= 65536) {
      uint8_t *notes = malloc(ph.p_filesz);
      if (notes && read_at(fd, notes, ph.p_filesz, ph.p_offset) == 0) {
        uint64_t off = 0;
        while (off + 12 <= ph.p_filesz) {
          Elf64_Nhdr nh;
          memcpy(&nh, notes + off, 12);
          uint64_t name_at = off + 12;
          uint64_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
          uint64_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
          if (next > ph.p_filesz)
            break;
          if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
              memcmp(notes + name_at, "GNU", 4) == 0 && nh.n_descsz > 0) {
            int len = nh.n_descsz > 20 ? 20 : (int)nh.n_descsz;
            memcpy(img->buildid, notes + desc_at, (size_t)len);
            img->buildid_len = len;
            break;
          }
          off = next;
        }
      }
      free(notes);
    }
  }
  return 0;
}

static uint64_t page_down(uint64_t a) { return a & ~(uint64_t)0xfff; }
static uint64_t page_up(uint64_t a) { return (a + 0xfff) & ~(uint64_t)0xfff; }

static struct mapping *add_mapping(void) {
  if (G.nmaps == G.capmaps) {
    size_t ncap = G.capmaps ? 2 * G.capmaps : 16;
    struct mapping *nm = realloc(G.maps, ncap * sizeof(*nm));
    if (!nm)
      abort();
    G.maps = nm;
    G.capmaps = ncap;
  }
  struct mapping *m = &G.maps[G.nmaps++];
  memset(m, 0, sizeof(*m));
  return m;
}

const struct mapping *find_mapping(uint64_t addr, size_t *index) {
  for (size_t i = G.nmaps; i-- > 0;) {
    const struct mapping *m = &G.maps[i];
    if (addr >= m->start && addr - m->start < m->len) {
      if (index)
        *index = i;
      return m;
    }
  }
  return NULL;
}

/* Emit one MMAP2 per executable PT_LOAD of an image QEMU loaded itself. */
static void map_loaded_image(const char *path, uint64_t bias) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct elf_image img;
  struct stat st;
  if (elf_read(fd, &img) == 0 && fstat(fd, &st) == 0) {
    for (int i = 0; i < img.nload; ++i) {
      const Elf64_Phdr *ph = &img.load[i];
      if (!(ph->p_flags & PF_X))
        continue;
      struct mapping *m = add_mapping();
      m->start = bias + page_down(ph->p_vaddr);
      m->len = page_up(ph->p_vaddr + ph->p_filesz) - page_down(ph->p_vaddr);
      m->pgoff = page_down(ph->p_offset);
      m->bias = bias;
      m->path = strdup(path);
      memcpy(m->buildid, img.buildid, sizeof(img.buildid));
      m->buildid_len = img.buildid_len;
      emit_mmap2(m, &st, PROT_READ | PROT_EXEC, MAP_PRIVATE, now_time());
    }
  }
  close(fd);
}

static void resolve(const char *in, char *out) {
  if (!realpath(in, out))
    snprintf(out, PATH_MAX, "%s", in);
}

void proc_start(void) {
  G.started = 1;
  G.pid = getpid();
  G.ppid = getppid();
  G.clock_start = G.clock;
  open_events();

  char exe[PATH_MAX], interp[PATH_MAX];
  const char *bin = qemu_plugin_path_to_binary();
  if (!bin)
    bin = "/proc/self/exe";
  resolve(bin, exe);
  /* Like the kernel: the last component of the path given to execve
   * (symlinks not followed), at most TASK_COMM_LEN - 1 = 15 characters. */
  const char *base = strrchr(bin, '/');
  const char *name = base ? base + 1 : bin;
  size_t clen =
      strlen(name) < sizeof(G.comm) - 1 ? strlen(name) : sizeof(G.comm) - 1;
  memcpy(G.comm, name, clen);
  G.comm[clen] = '\0';
  emit_comm(G.pid, now_time());

  int fd = open(exe, O_RDONLY | O_CLOEXEC);
  struct elf_image img;
  if (fd < 0 || elf_read(fd, &img) != 0) {
    if (fd >= 0)
      close(fd);
    return;
  }
  close(fd);
  /* QEMU's start_code is the lowest executable segment's runtime address;
   * a fixed-address executable (ET_EXEC) is never relocated. */
  uint64_t bias = 0;
  if (img.type == ET_DYN) {
    uint64_t lowest = ~(uint64_t)0;
    for (int i = 0; i < img.nload; ++i)
      if ((img.load[i].p_flags & PF_X) && img.load[i].p_vaddr < lowest)
        lowest = img.load[i].p_vaddr;
    if (lowest != ~(uint64_t)0)
      bias = qemu_plugin_start_code() - lowest;
  }
  map_loaded_image(exe, bias);

  if (img.interp[0]) {
    char want[PATH_MAX];
    snprintf(want, sizeof(want), "%s%s", G.sysroot ? G.sysroot : "",
             img.interp);
    if (access(want, R_OK) != 0)
      snprintf(want, sizeof(want), "%s", img.interp);
    resolve(want, interp);
    int ifd = open(interp, O_RDONLY | O_CLOEXEC);
    struct elf_image ii;
    if (ifd >= 0 && elf_read(ifd, &ii) == 0) {
      /* The first guest instruction is the interpreter's entry point. */
      map_loaded_image(interp, qemu_plugin_entry_code() - ii.entry);
    }
    if (ifd >= 0)
      close(ifd);
  }
}

/* The guest mapped a file executable: record it as the kernel would. */
static void map_from_fd(int fd, uint64_t addr, uint64_t len, uint64_t off,
                        uint32_t prot, uint32_t flags) {
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof(path) - 1);
  struct stat st;
  if (n <= 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return;
  path[n] = '\0';
  struct mapping *m = add_mapping();
  m->start = addr;
  m->len = page_up(len);
  m->pgoff = off;
  m->bias = addr - off;
  m->path = strdup(path);
  struct elf_image img;
  if (elf_read(fd, &img) == 0) {
    memcpy(m->buildid, img.buildid, sizeof(img.buildid));
    m->buildid_len = img.buildid_len;
    for (int i = 0; i < img.nload; ++i)
      if (page_down(img.load[i].p_offset) == off) {
        m->bias = addr - page_down(img.load[i].p_vaddr);
        break;
      }
  }
  emit_mmap2(m, &st, prot, flags & (MAP_SHARED | MAP_PRIVATE), now_time());
}

/*--- syscalls --------------------------------------------------------------*/

static void write_side_files(void);

/* Count the straight run each thread is in as if it ended now. */
static void close_runs(void) {
  for (unsigned i = 0; i < MAX_VCPUS; ++i) {
    struct vcpu *v = G.vcpus[i];
    if (v && v->prev != G.none)
      truth_range(v->run_start, v->prev, v->run_insns);
    if (v)
      v->prev = G.none;
  }
}

void proc_on_syscall(struct vcpu *v, int64_t num, const uint64_t *args) {
  (void)args;
  if (!G.started)
    return;
  const struct sysnums *s = SYS;
  if (num == s->execve || num == s->execveat) {
    /* qemu-user runs the new image natively: nothing of it is traced, and
     * this process's atexit never comes. Save what we have; a failed exec
     * just continues and overwrites it at the real exit. */
    close_runs();
    out_flush();
    write_side_files();
  } else if (num == s->exit) {
    int tid = v->tid ? v->tid : gettid_();
    if (tid != G.pid) /* a thread ends; the process exit is proc_exit's */
      emit_task(REC_EXIT, G.pid, G.pid, tid, G.pid, now_time());
  }
}

/* First syscall return in a forked child: become a new process. */
static void become_child(struct vcpu *v) {
  int parent = G.pid, ptid = v->tid ? v->tid : G.pid;
  G.buflen = 0; /* the parent writes what was buffered before the fork */
  G.pid = getpid();
  G.ppid = parent;
  G.clock_start = G.clock;
  G.samples = 0;
  open_events();
  truth_reset();
  for (unsigned i = 0; i < MAX_VCPUS; ++i)
    if (G.vcpus[i]) {
      G.vcpus[i]->prev = G.none; /* the child's first run starts here */
      G.vcpus[i]->tid = 0;
      /* perf gives a new task an empty LBR (reset on context switch). */
      G.vcpus[i]->lbr_count = 0;
    }
  emit_task(REC_FORK, G.pid, parent, G.pid, ptid, now_time());
}

void proc_on_syscall_ret(struct vcpu *v, int64_t num, int64_t ret) {
  if (!G.started || num != v->sc_num)
    return;
  const struct sysnums *s = SYS;
  if (num == s->mmap) {
    uint64_t len = v->sc_args[1], prot = v->sc_args[2];
    uint64_t flags = v->sc_args[3], off = v->sc_args[5];
    int fd = (int)v->sc_args[4];
    if (ret >= 0 || ret < -4095) {
      if ((prot & PROT_EXEC) && !(flags & MAP_ANONYMOUS) && fd >= 0)
        map_from_fd(fd, (uint64_t)ret, len, off, (uint32_t)prot,
                    (uint32_t)flags);
    }
  } else if (num == s->clone || num == s->fork || num == s->vfork ||
             num == s->clone3) {
    if (ret == 0 && getpid() != G.pid) {
      become_child(v);
    } else if (ret > 0 && num == s->clone &&
               (v->sc_args[0] & CLONE_THREAD_FLAG)) {
      int tid = v->tid ? v->tid : gettid_();
      emit_task(REC_FORK, G.pid, G.pid, (int)ret, tid, now_time());
    }
  }
}

/*--- exit ------------------------------------------------------------------*/

static void write_side_files(void) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/truth.%d.txt", G.outdir, G.pid);
  truth_write(path);
  snprintf(path, sizeof(path), "%s/dsos.%d.txt", G.outdir, G.pid);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  for (size_t i = 0; i < G.nmaps; ++i) {
    const struct mapping *m = &G.maps[i];
    if (!m->buildid_len)
      continue;
    for (int k = 0; k < m->buildid_len; ++k)
      fprintf(f, "%02x", m->buildid[k]);
    fprintf(f, " %s\n", m->path);
  }
  fclose(f);
}

void proc_exit(void) {
  if (!G.started || G.exited)
    return;
  G.exited = 1;
  close_runs();
  emit_task(REC_EXIT, G.pid, G.ppid, G.pid, G.ppid, now_time());
  out_flush();
  write_side_files();
  if (G.predsim)
    predsim_write();
}

/* qemu-user 7.2 ends a process that a guest signal kills (SIGSEGV, abort())
 * by restoring SIG_DFL and calling kill(getpid(), sig), without the plugin
 * exit callbacks. lbr-record preloads this library into qemu (LD_PRELOAD,
 * hidden from the guest), so this definition interposes on qemu's kill():
 * the process's records and truth are written before it dies. Loaded only
 * through -plugin, it is never called and nothing changes. */
LBR_PLUGIN_EXPORT int kill(pid_t pid, int sig) {
  if (pid == getpid() && sig != 0 && G.started) {
    if (G.mt)
      pthread_mutex_trylock(&G.lock); /* the vCPU that faulted may hold it */
    proc_exit();
  }
  return (int)syscall(SYS_kill, pid, sig);
}
