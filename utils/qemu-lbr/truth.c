/*===- truth.c - exact branch and range counts, the truth file ---*- C -*-===*
 *
 * Every taken branch (from, to) and every straight-line range [start, end]
 * executed between two taken branches is counted exactly, so that each
 * instruction's execution count follows (sum of the counts of the ranges
 * that contain it). Counting happens on taken branches only: a pair table
 * keyed by the two block descriptors, with a one-entry cache in the source
 * block (loops hit it almost always). At exit the pairs are folded by
 * address (several descriptors can share a start) and written, sorted, to
 * the truth file whose format docs/lbr-record.md describes:
 *
 *   branch 0x401136 0x401120 1000 0 0     from, to, count, mappings
 *   discont 0x401050 0x401200 3 0 0       same, for a transfer through the
 *                                         kernel (signal, sigreturn)
 *   range 0x401120 0x401136 5 1000 0      start, end, insns, count, mapping
 *
 *===----------------------------------------------------------------------===*/
#include "lbr.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A node of a pair table: (a, b) -> count, plus one value (insns). */
struct pair {
  struct tbinfo *a, *b;
  uint64_t value, count;
  struct pair *next;
};

struct edge {
  struct pair p;
};
struct range {
  struct pair p;
};

struct pair_table {
  struct pair **slots;
  size_t size, used;
  struct pair *chunk; /* nodes are carved from chunks and never move */
  size_t chunk_left;
  struct pair **chunks;
  size_t nchunks, capchunks;
};

static struct pair_table Edges, Ranges, Disconts;
static uint64_t RangeMismatch;

#define CHUNK_NODES 4096

static size_t pair_slot(const struct tbinfo *a, const struct tbinfo *b,
                        size_t size) {
  uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull ^
               (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4full;
  return (size_t)(h ^ (h >> 31)) & (size - 1);
}

static void table_grow(struct pair_table *t) {
  size_t nsize = t->size ? t->size * 2 : 1u << 12;
  struct pair **ns = calloc(nsize, sizeof(*ns));
  if (!ns)
    abort();
  for (size_t i = 0; i < t->size; ++i) {
    struct pair *p = t->slots[i];
    while (p) {
      struct pair *next = p->next;
      size_t s = pair_slot(p->a, p->b, nsize);
      p->next = ns[s];
      ns[s] = p;
      p = next;
    }
  }
  free(t->slots);
  t->slots = ns;
  t->size = nsize;
}

static struct pair *table_get(struct pair_table *t, struct tbinfo *a,
                              struct tbinfo *b, uint64_t value) {
  if (t->size) {
    for (struct pair *p = t->slots[pair_slot(a, b, t->size)]; p; p = p->next)
      if (p->a == a && p->b == b)
        return p;
  }
  if (t->used * 2 >= t->size)
    table_grow(t);
  if (!t->chunk_left) {
    if (t->nchunks == t->capchunks) {
      size_t ncap = t->capchunks ? 2 * t->capchunks : 16;
      struct pair **nc = realloc(t->chunks, ncap * sizeof(*nc));
      if (!nc)
        abort();
      t->chunks = nc;
      t->capchunks = ncap;
    }
    t->chunk = calloc(CHUNK_NODES, sizeof(struct pair));
    if (!t->chunk)
      abort();
    t->chunks[t->nchunks++] = t->chunk;
    t->chunk_left = CHUNK_NODES;
  }
  struct pair *p = t->chunk++;
  --t->chunk_left;
  p->a = a;
  p->b = b;
  p->value = value;
  size_t s = pair_slot(a, b, t->size);
  p->next = t->slots[s];
  t->slots[s] = p;
  ++t->used;
  return p;
}

void truth_edge(struct tbinfo *from, struct tbinfo *to) {
  struct edge *e = from->edge_cache;
  if (!e || e->p.b != to) {
    e = (struct edge *)table_get(&Edges, from, to, 0);
    from->edge_cache = e;
  }
  ++e->p.count;
}

void truth_discont(struct tbinfo *from, struct tbinfo *to) {
  ++table_get(&Disconts, from, to, 0)->count; /* rare: no cache */
}

void truth_range(struct tbinfo *start, struct tbinfo *end, uint64_t ninsns) {
  struct range *r = end->range_cache;
  if (!r || r->p.a != start) {
    r = (struct range *)table_get(&Ranges, start, end, ninsns);
    end->range_cache = r;
  }
  if (r->p.value != ninsns)
    ++RangeMismatch; /* code changed under the same addresses */
  ++r->p.count;
}

static void table_zero(struct pair_table *t) {
  for (size_t c = 0; c < t->nchunks; ++c) {
    size_t n =
        (c + 1 == t->nchunks) ? CHUNK_NODES - t->chunk_left : CHUNK_NODES;
    for (size_t i = 0; i < n; ++i)
      t->chunks[c][i].count = 0;
  }
}

void truth_reset(void) {
  table_zero(&Edges);
  table_zero(&Ranges);
  table_zero(&Disconts);
  RangeMismatch = 0;
}

/*--- writing ---------------------------------------------------------------*/

struct row {
  uint64_t x, y, value, count;
};

static int row_cmp(const void *pa, const void *pb) {
  const struct row *a = pa, *b = pb;
  if (a->x != b->x)
    return a->x < b->x ? -1 : 1;
  if (a->y != b->y)
    return a->y < b->y ? -1 : 1;
  return 0;
}

/* Fold a table by address; is_edge picks (last->start) or (start->last). */
static struct row *collect(struct pair_table *t, int is_edge, size_t *count) {
  struct row *rows = malloc((t->used + 1) * sizeof(*rows));
  if (!rows)
    abort();
  size_t n = 0;
  for (size_t c = 0; c < t->nchunks; ++c) {
    size_t k =
        (c + 1 == t->nchunks) ? CHUNK_NODES - t->chunk_left : CHUNK_NODES;
    for (size_t i = 0; i < k; ++i) {
      const struct pair *p = &t->chunks[c][i];
      if (!p->count)
        continue;
      struct row *r = &rows[n++];
      r->x = is_edge ? p->a->last : p->a->start;
      r->y = is_edge ? p->b->start : p->b->last;
      r->value = p->value;
      r->count = p->count;
    }
  }
  qsort(rows, n, sizeof(*rows), row_cmp);
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (out && rows[out - 1].x == rows[i].x && rows[out - 1].y == rows[i].y)
      rows[out - 1].count += rows[i].count;
    else
      rows[out++] = rows[i];
  }
  *count = out;
  return rows;
}

static void put_map(FILE *f, uint64_t addr) {
  size_t idx;
  if (find_mapping(addr, &idx))
    fprintf(f, " %zu", idx);
  else
    fputs(" -", f);
}

void truth_write(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  size_t nedges, nranges, ndisc;
  struct row *edges = collect(&Edges, 1, &nedges);
  struct row *ranges = collect(&Ranges, 0, &nranges);
  struct row *disc = collect(&Disconts, 1, &ndisc);
  uint64_t insns = 0, taken = 0, ndiscont = 0;
  for (size_t i = 0; i < nranges; ++i)
    insns += ranges[i].value * ranges[i].count;
  for (size_t i = 0; i < nedges; ++i)
    taken += edges[i].count;
  for (size_t i = 0; i < ndisc; ++i)
    ndiscont += disc[i].count;

  fprintf(f, "# lbr-record truth 1\n");
  fprintf(f, "process %d ppid %d comm %s\n", G.pid, G.ppid, G.comm);
  for (size_t i = 0; i < G.nmaps; ++i) {
    const struct mapping *m = &G.maps[i];
    fprintf(f,
            "mapping %zu start 0x%" PRIx64 " end 0x%" PRIx64 " pgoff 0x%" PRIx64
            " bias 0x%" PRIx64 " buildid ",
            i, m->start, m->start + m->len, m->pgoff, m->bias);
    if (!m->buildid_len)
      fputc('-', f);
    for (int k = 0; k < m->buildid_len; ++k)
      fprintf(f, "%02x", m->buildid[k]);
    fprintf(f, " path %s\n", m->path);
  }
  fprintf(f, "instructions %" PRIu64 "\n", insns);
  fprintf(f, "taken_branches %" PRIu64 "\n", taken);
  fprintf(f, "samples %" PRIu64 "\n", G.samples);
  fprintf(f, "discontinuities %" PRIu64 "\n", ndiscont);
  if (insns != G.clock - G.clock_start || RangeMismatch)
    fprintf(f, "warning retired %" PRIu64 " range_mismatches %" PRIu64 "\n",
            G.clock - G.clock_start, RangeMismatch);
  for (size_t i = 0; i < nedges; ++i) {
    fprintf(f, "branch 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64, edges[i].x,
            edges[i].y, edges[i].count);
    put_map(f, edges[i].x);
    put_map(f, edges[i].y);
    fputc('\n', f);
  }
  for (size_t i = 0; i < ndisc; ++i) {
    fprintf(f, "discont 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64, disc[i].x,
            disc[i].y, disc[i].count);
    put_map(f, disc[i].x);
    put_map(f, disc[i].y);
    fputc('\n', f);
  }
  for (size_t i = 0; i < nranges; ++i) {
    fprintf(f, "range 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64,
            ranges[i].x, ranges[i].y, ranges[i].value, ranges[i].count);
    put_map(f, ranges[i].x);
    fputc('\n', f);
  }
  fprintf(f, "end\n");
  free(edges);
  free(ranges);
  free(disc);
  fclose(f);
}
