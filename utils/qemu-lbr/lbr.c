/*===- lbr.c - emulated last-branch-record unit for qemu-user -----*- C -*-===*
 *
 * The plugin entry point and the per-block hot path. At translation time
 * each block gets a descriptor (start, last instruction, fall-through
 * address, branch kind of its last instruction). At execution time one
 * callback per block compares the block's start with the previous block's
 * fall-through address: equal means straight-line execution went on, any
 * other start means the previous block's last instruction was a taken
 * branch. Taken branches go into a ring of the newest N (the LBR), are
 * judged by a small predictor model (mispredict bit, cycle count), and are
 * counted exactly together with the straight-line ranges between them.
 * Every PERIOD instructions (with seedable jitter) a perf SAMPLE is written.
 *
 * A block ending in a direct branch that is followed by neither its target
 * nor its fall-through, and a block without a branch that is not followed
 * by its fall-through, were left through the kernel (a signal delivered,
 * rt_sigreturn): the LBR, filtered to user branches, records nothing, and
 * the truth lists the transfer as a discontinuity.
 *
 * Two QEMU 7.2 behaviours need care, both handled here:
 *  - A rep-prefixed string instruction runs as a block that jumps to itself
 *    once per iteration. Hardware sees one instruction and no branch, so a
 *    block starting at the previous block's last instruction, when that is a
 *    rep string op, continues the same instruction.
 *  - A non-first x86 instruction that crosses into the next page is dropped
 *    from its block when translated, yet still listed to plugins (with only
 *    the bytes read before the page end, so its listed size cannot tell);
 *    the next block then starts at it. The first time a block is followed
 *    by one starting at its own last instruction, near a page end, the
 *    descriptor is corrected and the one execution already counted is
 *    taken back.
 *
 *===----------------------------------------------------------------------===*/
#include "lbr.h"
#include "qemu_plugin_api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

LBR_PLUGIN_EXPORT int qemu_plugin_version = LBR_QEMU_PLUGIN_VERSION;

struct plugin_state G;

uint64_t now_time(void) {
  uint64_t t = G.t0 + G.clock;
  if (t < G.last_time)
    t = G.last_time;
  G.last_time = t;
  return t;
}

/*--- period and jitter -----------------------------------------------------*/

static uint64_t rng_next(uint64_t *s) {
  /* xorshift64*: small, seedable, good enough to de-alias sampling. */
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545f4914f6cdd1dull;
}

static int64_t next_period(struct vcpu *v) {
  int64_t p = G.period;
  int64_t j = p * (int64_t)G.jitter_pct / 100;
  if (j > 0)
    p += (int64_t)(rng_next(&v->rng) % (uint64_t)(2 * j + 1)) - j;
  return p < 1 ? 1 : p;
}

static struct vcpu *vcpu_new(unsigned idx) {
  struct vcpu *v = calloc(1, sizeof(*v));
  if (!v)
    abort();
  v->prev = G.none;
  v->rng = G.seed * 0x9e3779b97f4a7c15ull + idx + 1;
  if (!v->rng)
    v->rng = 1;
  v->cur_period = next_period(v);
  v->countdown = v->cur_period;
  /* Weakly not-taken: a branch seen once taken flips to predicted. */
  memset(v->bimodal, 1, sizeof(v->bimodal));
  return v;
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int idx) {
  (void)id;
  if (idx >= MAX_VCPUS)
    return;
  if (idx > 0)
    G.mt = 1; /* a second guest thread: serialize the callbacks from now */
  if (G.mt)
    pthread_mutex_lock(&G.lock);
  struct vcpu *v = G.vcpus[idx];
  if (!v) {
    G.vcpus[idx] = vcpu_new(idx);
  } else if (v->prev != G.none) {
    /* A new thread reuses an exited one's index: close that run. */
    truth_range(v->run_start, v->prev, v->run_insns);
    v->prev = G.none;
    v->tid = 0;
    v->lbr_count = 0;
    v->shadow_n = 0;
    v->shadow_over = 0;
  }
  if (G.mt)
    pthread_mutex_unlock(&G.lock);
}

/*--- predictor model -------------------------------------------------------*/

static inline unsigned pc_hash(uint64_t pc, unsigned bits) {
  return (unsigned)((pc ^ (pc >> bits) ^ (pc >> (2 * bits))) &
                    ((1u << bits) - 1));
}

static inline void ras_push(struct vcpu *v, uint64_t ret) {
  v->ras_top = (v->ras_top + 1) % RAS_DEPTH;
  v->ras[v->ras_top] = ret;
}

static inline uint64_t ras_pop(struct vcpu *v) {
  uint64_t r = v->ras[v->ras_top];
  v->ras_top = (v->ras_top + RAS_DEPTH - 1) % RAS_DEPTH;
  return r;
}

/* The shadow stack: exact, unlike the RAS above, which models hardware.
 * A call pushes its return address. A return pops down to the frame it
 * returns to, so frames a longjmp or an exception skipped go at the next
 * return; a return to an address not on the stack (a signal handler's
 * return to the sigreturn trampoline, a coroutine switch) changes nothing.
 * Tail calls push nothing and their callee's return pops the caller's
 * frame: the chain then names the function that made the tail call, as
 * frame-pointer unwinding does. */
static void shadow_call(struct vcpu *v, uint64_t ret) {
  if (v->shadow_n == v->shadow_cap) {
    if (v->shadow_cap >= SHADOW_MAX) {
      ++v->shadow_over;
      return;
    }
    uint32_t cap = v->shadow_cap ? 2 * v->shadow_cap : 256;
    uint64_t *s = realloc(v->shadow, cap * sizeof(*s));
    if (!s)
      abort();
    v->shadow = s;
    v->shadow_cap = cap;
  }
  v->shadow[v->shadow_n++] = ret;
}

static void shadow_return(struct vcpu *v, uint64_t to) {
  if (v->shadow_over) {
    --v->shadow_over;
    return;
  }
  for (uint32_t i = v->shadow_n; i > 0; --i)
    if (v->shadow[i - 1] == to) {
      v->shadow_n = i - 1;
      return;
    }
}

/* Indirect branch: mispredicted unless the BTB holds this very target. */
static inline int btb_mispredict(struct vcpu *v, uint64_t from, uint64_t to) {
  uint64_t *slot = &v->btb[pc_hash(from, BTB_BITS)];
  int mis = *slot != to;
  *slot = to;
  return mis;
}

/* A conditional branch fell through: train toward not-taken. A predicted
 * taken costs the penalty, charged to the next recorded branch's cycles. */
static inline void cond_not_taken(struct vcpu *v, uint64_t pc) {
  if (G.predsim)
    predsim_cond(pc, 0);
  uint8_t *c = &v->bimodal[pc_hash(pc, BIMODAL_BITS)];
  if (*c >= 2)
    v->penalty += G.penalty_cycles;
  if (*c > 0)
    --*c;
}

/* Record the taken branch prev->last -> tb->start in the LBR. */
static void lbr_push(struct vcpu *v, struct tbinfo *prev, struct tbinfo *tb) {
  uint64_t from = prev->last, to = tb->start;
  int mis = 0;
  switch (prev->kind) {
  case BK_COND: {
    if (G.predsim)
      predsim_cond(from, 1);
    uint8_t *c = &v->bimodal[pc_hash(from, BIMODAL_BITS)];
    mis = *c < 2;
    if (*c < 3)
      ++*c;
    break;
  }
  case BK_IND:
    if (G.predsim)
      predsim_ind(from, to);
    mis = btb_mispredict(v, from, to);
    break;
  case BK_IND_CALL:
    if (G.predsim)
      predsim_ind(from, to);
    mis = btb_mispredict(v, from, to);
    ras_push(v, prev->fall);
    if (G.callchain)
      shadow_call(v, prev->fall);
    break;
  case BK_CALL:
    ras_push(v, prev->fall);
    if (G.callchain)
      shadow_call(v, prev->fall);
    break;
  case BK_RET:
    mis = ras_pop(v) != to;
    if (G.callchain)
      shadow_return(v, to);
    break;
  default:
    break;
  }
  uint64_t cycles = v->since_branch + v->penalty;
  if (cycles > 0xffff)
    cycles = 0xffff;
  v->penalty = mis ? G.penalty_cycles : 0;
  v->since_branch = 0;

  uint64_t flags =
      (uint64_t)(mis != 0) | ((uint64_t)(mis == 0) << 1) | (cycles << 4);
  if (G.save_type)
    flags |= (uint64_t)branch_kind_perf_type(prev->kind) << 20;
  if (++v->lbr_head == G.depth) /* no '%': a division per branch shows */
    v->lbr_head = 0;
  struct lbr_slot *s = &v->ring[v->lbr_head];
  s->from = from;
  s->to = to;
  s->flags = flags;
  if (v->lbr_count < G.depth)
    ++v->lbr_count;
}

/* Control did not continue at prev's fall-through: close the straight run
 * that ended at prev and start a new one at tb. */
static void transfer(struct vcpu *v, struct tbinfo *prev, struct tbinfo *tb) {
  if (prev != G.none) {
    truth_range(v->run_start, prev, v->run_insns);
    /* A block ending in a direct branch can only go to its target (or fall
     * through); anything else, like a block without a branch going
     * elsewhere, came through the kernel (signal delivery, sigreturn), and
     * the LBR, filtered to user branches, records nothing. */
    if (prev->kind != BK_NONE && prev->kind != BK_SYSCALL &&
        (prev->target == ~(uint64_t)0 || prev->target == tb->start)) {
      truth_edge(prev, tb);
      lbr_push(v, prev, tb);
    } else {
      truth_discont(prev, tb);
    }
  }
  v->run_start = tb;
  v->run_insns = 0;
}

static void take_samples(struct vcpu *v, struct tbinfo *tb, uint32_t skip,
                         uint32_t n) {
  while (v->countdown <= 0) {
    /* The counter overflowed at effective instruction n+countdown-1. */
    int64_t k = (int64_t)n + v->countdown - 1;
    uint64_t ip = tb->insn[skip + (uint64_t)k];
    uint64_t t = G.t0 + G.clock + (uint64_t)v->countdown;
    if (t < G.last_time)
      t = G.last_time;
    G.last_time = t;
    emit_sample(v, ip, (uint64_t)v->cur_period, t);
    v->cur_period = next_period(v);
    v->countdown += v->cur_period;
  }
}

/* prev's listed last instruction was dropped by QEMU (it crosses a page)
 * and is the first of tb: shorten prev for good, undo its one extra count. */
static int fix_dropped_insn(struct vcpu *v, struct tbinfo *prev,
                            struct tbinfo *tb) {
  uint64_t page_end = (prev->start | 0xfff) + 1;
  if (prev->n < 2 || prev->last_rep || tb->start != prev->last ||
      prev->target == tb->start || /* a real branch to itself */
      page_end - prev->last > 15 ||
      (prev->last & ~(uint64_t)0xfff) != (prev->start & ~(uint64_t)0xfff))
    return 0;
  prev->fall = prev->last;
  prev->fall_ok = prev->last;
  prev->n -= 1;
  prev->last = prev->insn[prev->n - 1];
  prev->kind = BK_NONE;
  prev->target = ~(uint64_t)0;
  v->run_insns -= 1;
  v->since_branch -= 1;
  G.clock -= 1;
  v->countdown += 1;
  return 1;
}

/* The hot path: once per executed block. */
static void tb_exec(unsigned int idx, void *udata) {
  struct tbinfo *tb = udata;
  if (idx >= MAX_VCPUS)
    return;
  int mt = G.mt;
  if (mt)
    pthread_mutex_lock(&G.lock);
  struct vcpu *v = G.vcpus[idx];
  if (!v)
    v = G.vcpus[idx] = vcpu_new(idx);
  struct tbinfo *prev = v->prev;
  uint32_t skip = 0;
  if (tb->start == prev->fall_ok) {
    if (prev->kind == BK_COND)
      cond_not_taken(v, prev->last);
  } else if (prev->last_rep && tb->start == prev->last) {
    skip = 1; /* next iteration of the same rep string instruction */
  } else if (tb->start == prev->last && fix_dropped_insn(v, prev, tb)) {
    /* straight-line after all */
  } else {
    transfer(v, prev, tb);
  }
  v->prev = tb;
  uint32_t n = tb->n - skip;
  v->run_insns += n;
  v->since_branch += n;
  G.clock += n;
  v->countdown -= n;
  if (v->countdown <= 0)
    take_samples(v, tb, skip, n);
  if (mt)
    pthread_mutex_unlock(&G.lock);
}

/*--- translation -----------------------------------------------------------*/

static size_t thash_slot(uint64_t start, uint64_t last, size_t size) {
  uint64_t h = start * 0x9e3779b97f4a7c15ull ^ (last + (last << 17));
  return (size_t)(h ^ (h >> 29)) & (size - 1);
}

static void thash_grow(void) {
  size_t nsize = G.thash_size ? G.thash_size * 2 : 1u << 14;
  struct tbinfo **nt = calloc(nsize, sizeof(*nt));
  if (!nt)
    abort();
  for (size_t i = 0; i < G.thash_size; ++i) {
    struct tbinfo *t = G.thash[i];
    while (t) {
      struct tbinfo *next = t->hnext;
      size_t s = thash_slot(t->start, t->key_last, nsize);
      t->hnext = nt[s];
      nt[s] = t;
      t = next;
    }
  }
  free(G.thash);
  G.thash = nt;
  G.thash_size = nsize;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  if (!G.started)
    proc_start(); /* the guest is loaded once its first block translates */
  size_t n = qemu_plugin_tb_n_insns(tb);
  if (n == 0)
    return;
  uint64_t start = qemu_plugin_tb_vaddr(tb);
  uint64_t page = start & ~(uint64_t)0xfff;
  size_t keep = n;
  if (G.is_x86) {
    for (size_t i = 1; i < n; ++i) {
      struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
      uint64_t va = qemu_plugin_insn_vaddr(in);
      size_t sz = qemu_plugin_insn_size(in);
      if (((va + sz - 1) & ~(uint64_t)0xfff) != page) {
        keep = i; /* QEMU 7.2 dropped this one from the block */
        break;
      }
    }
  }
  struct qemu_plugin_insn *lastin = qemu_plugin_tb_get_insn(tb, keep - 1);
  uint64_t last = qemu_plugin_insn_vaddr(lastin);
  size_t lsz = qemu_plugin_insn_size(lastin);
  const uint8_t *bytes = qemu_plugin_insn_data(lastin);
  struct insn_class c = G.is_x86 ? decode_x86_64(bytes, lsz, last)
                                 : decode_aarch64(bytes, lsz, last);

  if (G.thash_used * 2 >= G.thash_size)
    thash_grow();
  size_t s = thash_slot(start, last, G.thash_size);
  struct tbinfo *t;
  for (t = G.thash[s]; t; t = t->hnext)
    if (t->start == start && t->key_last == last && t->key_n == keep &&
        t->kind == c.kind && t->last_rep == c.rep_string)
      break;
  if (!t) {
    t = calloc(1, sizeof(*t) + keep * sizeof(uint64_t));
    if (!t)
      abort();
    t->start = start;
    t->last = t->key_last = last;
    t->key_n = (uint32_t)keep;
    t->fall = last + lsz;
    t->n = (uint32_t)keep;
    t->kind = (uint8_t)c.kind;
    t->last_rep = (uint8_t)c.rep_string;
    /* Reaching the next address after an unconditional branch (a call to
     * the next instruction, say) is still a taken branch. */
    int may_fall =
        c.kind == BK_NONE || c.kind == BK_COND || c.kind == BK_SYSCALL;
    t->fall_ok = may_fall ? t->fall : ~(uint64_t)0;
    t->target = c.has_target ? c.target : ~(uint64_t)0;
    for (size_t i = 0; i < keep; ++i)
      t->insn[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
    t->hnext = G.thash[s];
    G.thash[s] = t;
    ++G.thash_used;
  }
  qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

/*--- syscalls and exit -----------------------------------------------------*/

static void on_syscall(qemu_plugin_id_t id, unsigned int idx, int64_t num,
                       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
  (void)id;
  (void)a7;
  (void)a8;
  if (idx >= MAX_VCPUS)
    return;
  int mt = G.mt;
  if (mt)
    pthread_mutex_lock(&G.lock);
  struct vcpu *v = G.vcpus[idx];
  if (!v)
    v = G.vcpus[idx] = vcpu_new(idx);
  uint64_t args[6] = {a1, a2, a3, a4, a5, a6};
  v->sc_num = num;
  memcpy(v->sc_args, args, sizeof(args));
  proc_on_syscall(v, num, args);
  if (mt)
    pthread_mutex_unlock(&G.lock);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int idx, int64_t num,
                           int64_t ret) {
  (void)id;
  if (idx >= MAX_VCPUS)
    return;
  int mt = G.mt;
  if (mt)
    pthread_mutex_lock(&G.lock);
  struct vcpu *v = G.vcpus[idx];
  if (v)
    proc_on_syscall_ret(v, num, ret);
  if (mt)
    pthread_mutex_unlock(&G.lock);
}

static void on_exit_cb(qemu_plugin_id_t id, void *p) {
  (void)id;
  (void)p;
  if (G.mt)
    pthread_mutex_lock(&G.lock);
  proc_exit();
  if (G.mt)
    pthread_mutex_unlock(&G.lock);
}

/*--- install ---------------------------------------------------------------*/

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *s == '\0' || *end != '\0')
    return -1;
  *out = v;
  return 0;
}

static int fail(const char *msg, const char *arg) {
  char buf[512];
  snprintf(buf, sizeof(buf), "lbr plugin: %s%s%s\n", msg, arg ? ": " : "",
           arg ? arg : "");
  qemu_plugin_outs(buf);
  return -1;
}

LBR_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                          const qemu_info_t *info, int argc,
                                          char **argv) {
  if (info->system_emulation)
    return fail("only user-mode emulation is supported", NULL);
  if (strcmp(info->target_name, "x86_64") == 0)
    G.is_x86 = 1;
  else if (strcmp(info->target_name, "aarch64") != 0)
    return fail("unsupported target", info->target_name);

  G.depth = 32;
  G.period = 100003;
  G.jitter_pct = 10;
  G.seed = 1;
  G.penalty_cycles = 16;
  G.predsim = predsim_init();
  for (int i = 0; i < argc; ++i) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return fail("expected key=value", argv[i]);
    *eq = '\0';
    const char *k = argv[i], *val = eq + 1;
    uint64_t u = 0;
    if (strcmp(k, "out") == 0) {
      G.outdir = strdup(val);
    } else if (strcmp(k, "sysroot") == 0) {
      G.sysroot = strdup(val);
    } else if (parse_u64(val, &u) != 0) {
      return fail("not a number", val);
    } else if (strcmp(k, "depth") == 0) {
      if (u < 1 || u > MAX_DEPTH)
        return fail("depth must be 1..256", val);
      G.depth = (unsigned)u;
    } else if (strcmp(k, "period") == 0) {
      if (u < 1 || u > (1ull << 40))
        return fail("period out of range", val);
      G.period = (int64_t)u;
    } else if (strcmp(k, "jitter") == 0) {
      if (u > 50)
        return fail("jitter must be 0..50 (percent)", val);
      G.jitter_pct = (unsigned)u;
    } else if (strcmp(k, "seed") == 0) {
      G.seed = u;
    } else if (strcmp(k, "savetype") == 0) {
      G.save_type = u != 0;
    } else if (strcmp(k, "callchain") == 0) {
      G.callchain = u != 0;
    } else if (strcmp(k, "penalty") == 0) {
      G.penalty_cycles = (unsigned)(u > 1000 ? 1000 : u);
    } else {
      return fail("unknown option", k);
    }
  }
  if (!G.outdir)
    return fail("missing out=DIR", NULL);

  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  G.t0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  pthread_mutex_init(&G.lock, NULL);
  G.none = calloc(1, sizeof(struct tbinfo));
  if (!G.none)
    abort();
  G.none->start = G.none->last = G.none->fall = ~(uint64_t)0;
  G.none->fall_ok = G.none->target = ~(uint64_t)0;

  qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
  qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
  return 0;
}
