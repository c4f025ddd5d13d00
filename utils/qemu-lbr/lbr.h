/*===- lbr.h - shared state of the emulated-LBR QEMU plugin ------*- C -*-===*
 *
 * The plugin watches every translation block (TB) a guest runs under
 * qemu-user and derives, from the order in which blocks execute, the taken
 * branches a last-branch-record unit would see. It keeps the newest N of
 * them per vCPU, writes a perf SAMPLE with that branch stack every PERIOD
 * instructions, and counts every taken branch and straight-line range
 * exactly (the "truth"). This header holds the types shared by the plugin's
 * four parts: lbr.c (callbacks, LBR and predictor), decode.c (branch kind of
 * an instruction), proc.c (process, mappings, perf records) and truth.c
 * (exact counters and the truth file).
 *
 * A QEMU plugin is driven by global callbacks, so its state lives in one
 * process-wide object (G); a forked guest gets a copy and re-initializes
 * the per-process parts of it.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LBR_PLUGIN_LBR_H
#define LBR_PLUGIN_LBR_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What the last instruction of a block does to control flow. */
enum branch_kind {
  BK_NONE = 0, /* not a branch: the block ended for QEMU's own reasons */
  BK_COND,     /* conditional direct jump (jcc, loop, jrcxz, b.cond, cbz) */
  BK_JUMP,     /* unconditional direct jump */
  BK_IND,      /* indirect jump (jmp *%rax, br x16) */
  BK_CALL,     /* direct call (call rel32, bl) */
  BK_IND_CALL, /* indirect call (call *%rax, blr) */
  BK_RET,      /* return */
  BK_SYSCALL,  /* enters the kernel (syscall, svc, int): never recorded */
};

/* Result of decoding one instruction's bytes. */
struct insn_class {
  enum branch_kind kind;
  int rep_string;  /* x86 rep/repne string op: QEMU loops it on itself */
  int has_target;  /* direct branch whose target is known */
  uint64_t target; /* its runtime target address */
};

/* decode.c: classify the guest instruction at runtime address pc. */
struct insn_class decode_x86_64(const uint8_t *bytes, size_t size, uint64_t pc);
struct insn_class decode_aarch64(const uint8_t *bytes, size_t size,
                                 uint64_t pc);

/* perf_branch_entry.type for a kind (only written with --save-type). */
unsigned branch_kind_perf_type(enum branch_kind kind);

struct edge;
struct range;

/* One translated block as the plugin sees it. Blocks with the same start,
 * end and length share one descriptor, so retranslation keeps counts. */
struct tbinfo {
  uint64_t start;    /* runtime address of the first instruction */
  uint64_t last;     /* runtime address of the last executed instruction */
  uint64_t fall;     /* address after `last` */
  uint64_t fall_ok;  /* == fall if reaching `fall` is not a branch, else ~0 */
  uint64_t target;   /* direct branch target, ~0 if unknown or indirect */
  uint32_t n;        /* instructions QEMU really executes in the block */
  uint8_t kind;      /* enum branch_kind of the last instruction */
  uint8_t last_rep;  /* last instruction is a rep-prefixed string op */
  uint64_t key_last; /* `last` and `n` as QEMU listed them, for dedup */
  uint32_t key_n;
  struct edge *edge_cache;   /* the last taken edge leaving this block */
  struct range *range_cache; /* the last range that ended in this block */
  struct tbinfo *hnext;      /* chain of the descriptor hash */
  uint64_t insn[];           /* address of each of the n instructions */
};

/* One LBR slot. */
struct lbr_slot {
  uint64_t from, to;
  uint64_t flags; /* perf_branch_entry's third word, already encoded */
};

#define MAX_DEPTH 256
#define BIMODAL_BITS 12
#define BTB_BITS 10
#define RAS_DEPTH 16
#define SHADOW_MAX (1u << 20)
/* Addresses in a sample's callchain after the context marker, the sample
 * IP included: the kernel's default perf_event_max_stack. */
#define CALLCHAIN_MAX 127
#define PERF_CONTEXT_USER ((uint64_t)-512)

/* Per-vCPU (per guest thread) state: the LBR unit, the predictor model and
 * the instruction counters. */
struct vcpu {
  struct tbinfo *prev;      /* block executed last (G.none at a fresh start) */
  struct tbinfo *run_start; /* block that began the current straight run */
  uint64_t run_insns;       /* instructions in the current run so far */
  uint64_t since_branch;    /* instructions since the last taken branch */
  uint32_t penalty;         /* mispredict cycles not yet charged */
  int64_t countdown;        /* instructions until the next sample */
  int64_t cur_period;       /* length of the period being counted */
  uint32_t lbr_head;        /* index of the newest slot */
  uint32_t lbr_count;       /* valid slots, <= depth */
  int tid;                  /* guest thread id, 0 until first known */
  uint64_t rng;             /* xorshift state for the period jitter */
  struct lbr_slot ring[MAX_DEPTH];
  uint8_t bimodal[1u << BIMODAL_BITS]; /* 2-bit counters, 0..3 */
  uint64_t btb[1u << BTB_BITS];        /* last target per indirect branch */
  uint64_t ras[RAS_DEPTH];             /* return address stack (circular) */
  uint32_t ras_top;
  /* Shadow call stack (callchain=1): the return address of every call not
   * yet returned from, oldest first; frames past SHADOW_MAX are only
   * counted (shadow_over), so deep recursion keeps pops matched. */
  uint64_t *shadow;
  uint32_t shadow_n, shadow_cap;
  uint64_t shadow_over;
  /* Arguments of the syscall in flight, for the return callback. */
  int64_t sc_num;
  uint64_t sc_args[6];
};

/* A file-backed executable mapping of the process (what an MMAP2 says). */
struct mapping {
  uint64_t start, len, pgoff;
  uint64_t bias; /* runtime address - link-time address */
  char *path;
  uint8_t buildid[20];
  int buildid_len;
};

#define MAX_VCPUS 4096

struct plugin_state {
  /* Options. */
  char *outdir;
  unsigned depth;
  int64_t period;
  unsigned jitter_pct;
  uint64_t seed;
  int save_type;
  int callchain; /* write PERF_SAMPLE_CALLCHAIN from the shadow stack */
  unsigned penalty_cycles;
  char *sysroot;
  int is_x86;
  /* Process. */
  int pid, ppid;
  int started; /* exe/ld.so mappings emitted */
  int exited;  /* proc_exit done */
  char comm[16];
  uint64_t t0;          /* CLOCK_MONOTONIC ns at start */
  uint64_t clock;       /* guest instructions retired (virtual ns) */
  uint64_t clock_start; /* clock when this process began (fork) */
  uint64_t last_time;   /* newest timestamp written */
  uint64_t samples;
  struct mapping *maps;
  size_t nmaps, capmaps;
  /* Output. */
  char events_path[4096]; /* OUTDIR/events.PID.bin, "" if unwritable */
  char *buf;
  size_t buflen, bufcap;
  uint64_t records_since_round;
  /* Threads. */
  volatile int mt;      /* set once a second vCPU exists */
  pthread_mutex_t lock; /* in MT mode, held by every callback */
  struct vcpu *vcpus[MAX_VCPUS];
  /* Block descriptors. */
  struct tbinfo *none; /* sentinel "previous block" at a fresh start */
  struct tbinfo **thash;
  size_t thash_size, thash_used;
  /* LBR_PREDSIM is set: run the branches through predsim.c's models. */
  int predsim;
};

extern struct plugin_state G;

/* lbr.c */
uint64_t now_time(void);

/* proc.c: process identity, mappings and the perf record stream. */
void proc_start(void);
void proc_on_syscall(struct vcpu *v, int64_t num, const uint64_t *args);
void proc_on_syscall_ret(struct vcpu *v, int64_t num, int64_t ret);
void proc_exit(void);
void out_record(const void *rec, size_t size);
void out_flush(void);
void emit_sample(struct vcpu *v, uint64_t ip, uint64_t period, uint64_t time);
const struct mapping *find_mapping(uint64_t addr, size_t *index);

/* truth.c: exact counters. */
void truth_edge(struct tbinfo *from, struct tbinfo *to);
void truth_range(struct tbinfo *start, struct tbinfo *end, uint64_t ninsns);
void truth_discont(struct tbinfo *from, struct tbinfo *to);
void truth_reset(void);
void truth_write(const char *path);

/* predsim.c: callgrind's branch predictor model, with larger tables. */
int predsim_init(void);
void predsim_cond(uint64_t pc, int taken);
void predsim_ind(uint64_t pc, uint64_t to);
void predsim_write(void);

#endif
