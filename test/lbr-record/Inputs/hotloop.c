// A hot loop whose latch is the only conditional branch of hot_loop, so a
// test can find the backward jump in the disassembly and expect it in the
// recorded branch stacks.
volatile int Data[16];

__attribute__((noinline)) int hot_loop(void) {
  int s = 0;
  for (int i = 0; i < 200000; ++i)
    s += Data[i & 15];
  return s;
}

int main(void) { return hot_loop() & 1; }
