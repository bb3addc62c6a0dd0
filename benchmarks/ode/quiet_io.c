/* Output functions that do nothing, for the "quiet" build of SUNDIALS'
 * cvsRoberts_dns example (benchmarks/ode/CMakeLists.txt renames its
 * printf, fopen, fclose and CVodePrintAllStats to these), so the example
 * and Camber's run do the same work: the integration alone. */
#include <stdio.h>

#include <cvodes/cvodes.h>

int camber_quiet_printf(const char* format, ...) {
  (void)format;
  return 0;
}

FILE* camber_quiet_fopen(const char* path, const char* mode) {
  (void)path;
  (void)mode;
  return stdout; /* never written: CVodePrintAllStats is quiet too */
}

int camber_quiet_fclose(FILE* file) {
  (void)file;
  return 0;
}

int camber_quiet_stats(void* cvode_mem, FILE* out, SUNOutputFormat format) {
  (void)cvode_mem;
  (void)out;
  (void)format;
  return 0;
}
