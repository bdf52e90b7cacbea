/*
 * rusage-run OUT COMMAND [ARG...]: run COMMAND, wait for it, and write to OUT its CPU time and
 * peak RSS as wait4(2) reports them for the child and the children it waited for:
 * "<user s> <system s> <max RSS KiB>", in microseconds where /usr/bin/time prints hundredths.
 * Exits with the command's exit code (128 + the signal that ended it). bench/exec-cost.ts
 * compiles it on first use.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: rusage-run OUT COMMAND [ARG...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("rusage-run: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("rusage-run: wait4");
    return 2;
  }
  FILE *out = fopen(argv[1], "w");
  if (out == NULL) {
    perror(argv[1]);
    return 2;
  }
  fprintf(out, "%ld.%06ld %ld.%06ld %ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
  fclose(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}
