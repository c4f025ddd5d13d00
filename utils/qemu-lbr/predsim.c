/*===- predsim.c - callgrind's branch predictor, larger tables ---*- C -*-===*
 *
 * With LBR_PREDSIM=FILE in its environment, the plugin also runs every
 * conditional and indirect branch the guest executes through the branch
 * predictor that callgrind and cachegrind simulate (--branch-sim=yes;
 * valgrind's cachegrind/cg_branchpred.c), and through the same model with
 * larger tables, and writes the counts to FILE.PID at exit:
 *   - conditional: 2-bit saturating counters, indexed by H bits of global
 *     history (taken = 1, newest lowest) above A low bits of the branch's
 *     address; callgrind's is H = 7, A = 7 (16k counters);
 *   - indirect (jumps and calls, not returns): the last target, in a table
 *     indexed by A low address bits; callgrind's is A = 9.
 * The larger tables tell apart what code placement changes through the
 * table's aliasing (two branches, or two histories, on one counter) from
 * what it changes in the branches themselves: H = 0 with A = 20 is one
 * counter per branch (no aliasing in a program under 1 MB), which no
 * layout can change but by inverting a branch's sense (symmetric).
 *
 *===----------------------------------------------------------------------===*/
#include "lbr.h"

#include <stdlib.h>
#include <unistd.h>

struct cond_model {
  unsigned hist, addr;
  uint8_t *ctr;
  uint64_t history, n, miss;
};

struct ind_model {
  unsigned addr;
  uint64_t *target;
  uint64_t n, miss;
};

static struct cond_model Cond[] = {
    {.hist = 7, .addr = 7}, {.hist = 7, .addr = 16},
    {.hist = 0, .addr = 7}, {.hist = 0, .addr = 20}};
static struct ind_model Ind[] = {{.addr = 9}, {.addr = 20}};
#define N_COND (sizeof(Cond) / sizeof(Cond[0]))
#define N_IND (sizeof(Ind) / sizeof(Ind[0]))

int predsim_init(void) {
  const char *out = getenv("LBR_PREDSIM");
  if (!out || !*out)
    return 0;
  for (unsigned i = 0; i < N_COND; ++i) {
    Cond[i].ctr = calloc((size_t)1 << (Cond[i].hist + Cond[i].addr), 1);
    if (!Cond[i].ctr)
      return 0;
  }
  for (unsigned i = 0; i < N_IND; ++i) {
    Ind[i].target = calloc((size_t)1 << Ind[i].addr, sizeof(uint64_t));
    if (!Ind[i].target)
      return 0;
  }
  return 1;
}

void predsim_cond(uint64_t pc, int taken) {
  for (unsigned i = 0; i < N_COND; ++i) {
    struct cond_model *m = &Cond[i];
    uint64_t h = m->history & ((1ull << m->hist) - 1);
    uint8_t *c = &m->ctr[(h << m->addr) | (pc & ((1ull << m->addr) - 1))];
    ++m->n;
    if ((*c >= 2) != (taken != 0))
      ++m->miss;
    m->history = (m->history << 1) | (taken != 0);
    if (taken && *c < 3)
      ++*c;
    else if (!taken && *c > 0)
      --*c;
  }
}

void predsim_ind(uint64_t pc, uint64_t to) {
  for (unsigned i = 0; i < N_IND; ++i) {
    struct ind_model *m = &Ind[i];
    uint64_t *t = &m->target[pc & ((1ull << m->addr) - 1)];
    ++m->n;
    if (*t != to)
      ++m->miss;
    *t = to;
  }
}

void predsim_write(void) {
  const char *out = getenv("LBR_PREDSIM");
  if (!out || !*out)
    return;
  char path[4096];
  snprintf(path, sizeof(path), "%s.%d", out, (int)getpid());
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "# lbr-record predsim 1: kind history-bits address-bits "
             "branches mispredicts\n");
  for (unsigned i = 0; i < N_COND; ++i)
    fprintf(f, "cond %u %u %llu %llu\n", Cond[i].hist, Cond[i].addr,
            (unsigned long long)Cond[i].n, (unsigned long long)Cond[i].miss);
  for (unsigned i = 0; i < N_IND; ++i)
    fprintf(f, "ind 0 %u %llu %llu\n", Ind[i].addr,
            (unsigned long long)Ind[i].n, (unsigned long long)Ind[i].miss);
  fclose(f);
}
