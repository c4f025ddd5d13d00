// Exits with the status given as its first argument, or calls abort() if
// the argument is "abort", after a loop long enough to be sampled; checks
// that lbr-record passes arguments through, returns the program's status,
// and keeps its data when a signal kills it.
#include <stdlib.h>
#include <string.h>

volatile long Sink;

int main(int argc, char **argv) {
  for (long i = 0; i < 100000; i++)
    Sink += i;
  if (argc > 1 && strcmp(argv[1], "abort") == 0)
    abort();
  return argc > 1 ? atoi(argv[1]) : 0;
}
