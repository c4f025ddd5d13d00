/* Calls into libplt.so once, so that a recording with a short period
   (every branch in some sample's stack) sees the exit path too: lib's
   __do_global_dtors_aux calling __cxa_finalize through .plt.got. */
unsigned work(unsigned n);
int main(void) { return work(3) == 12345; }
