// Raises SIGUSR1 every 1000 iterations; the handler runs a small loop. The
// signal enters and leaves the handler through the kernel, which the LBR
// (filtered to user branches) does not record; the truth lists those
// transfers as `discont` lines and stays exact for t_work and t_handler.
#include <signal.h>
#include <stdio.h>

static volatile int Hits;

__attribute__((noinline)) void t_handler(int sig) {
  for (int i = 0; i < 10; i++)
    Hits += sig & i ? 1 : 2;
}

__attribute__((noinline)) int t_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += i & 3 ? i : -1;
    if (i % 1000 == 0)
      raise(SIGUSR1);
  }
  return s;
}

int main(void) {
  signal(SIGUSR1, t_handler);
  printf("%d %d\n", t_work(100000), Hits);
  return 0;
}
