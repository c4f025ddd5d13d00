// Forks a child and starts a thread; all three compute for a while so each
// gets samples. The child exits with status 3, which the parent reports.
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long spin(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i % 7 ? 1 : 2;
  return s;
}

static void *thread_main(void *arg) {
  (void)arg;
  return (void *)spin(300000);
}

int main(void) {
  long r = spin(200000);
  pid_t child = fork();
  if (child == 0) {
    printf("child %ld\n", spin(400000));
    fflush(stdout);
    _exit(3);
  }
  pthread_t t;
  pthread_create(&t, 0, thread_main, 0);
  r += spin(100000);
  void *tr;
  pthread_join(t, &tr);
  int status;
  waitpid(child, &status, 0);
  printf("parent %ld %ld status %d\n", r, (long)tr, WEXITSTATUS(status));
  return 0;
}
