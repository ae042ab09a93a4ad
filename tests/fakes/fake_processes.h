/* Which processes a per-process usage record of the fake NVML and ROCm SMI
 * answers for. A record names its process as a pid, as "any" (every
 * descendant of the process that loaded the library: in gantrystepd, every
 * process of the step, whose pids a test cannot know in advance), or as a
 * command name (a descendant whose /proc/<pid>/comm is that name). */
#ifndef GANTRY_TESTS_FAKES_FAKE_PROCESSES_H
#define GANTRY_TESTS_FAKES_FAKE_PROCESSES_H

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned fakeParentOf(unsigned pid) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%u/stat", pid);
  FILE* file = fopen(path, "r");
  if (!file) return 0;
  size_t n = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  text[n] = 0;
  char* close = strrchr(text, ')');
  unsigned ppid = 0;
  char state = 0;
  if (!close || sscanf(close + 1, " %c %u", &state, &ppid) != 2) return 0;
  return ppid;
}

static int fakeIsDescendant(unsigned pid) {
  unsigned self = (unsigned)getpid();
  for (int depth = 0; pid > 1 && depth < 64; ++depth) {
    pid = fakeParentOf(pid);
    if (pid == self) return 1;
  }
  return 0;
}

static int fakeCommandIs(unsigned pid, const char* name) {
  char path[64], comm[64] = {0};
  snprintf(path, sizeof path, "/proc/%u/comm", pid);
  FILE* file = fopen(path, "r");
  if (!file) return 0;
  if (!fgets(comm, sizeof comm, file)) comm[0] = 0;
  fclose(file);
  comm[strcspn(comm, "\n")] = 0;
  return strcmp(comm, name) == 0;
}

static int fakeAllDigits(const char* text) {
  if (!*text) return 0;
  for (; *text; ++text)
    if (!isdigit((unsigned char)*text)) return 0;
  return 1;
}

/* Whether a record naming `who` answers for `pid`. */
static int fakeProcessMatches(const char* who, unsigned pid) {
  if (fakeAllDigits(who)) return (unsigned)strtoul(who, NULL, 10) == pid;
  if (!fakeIsDescendant(pid)) return 0;
  return strcmp(who, "any") == 0 || fakeCommandIs(pid, who);
}

/* The pids a record naming `who` answers for, at most `max`. */
static unsigned fakeProcessesMatching(const char* who, unsigned* pids, unsigned max) {
  unsigned count = 0;
  if (fakeAllDigits(who)) {
    if (max > 0) pids[count++] = (unsigned)strtoul(who, NULL, 10);
    return count;
  }
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  for (struct dirent* entry; (entry = readdir(proc)) != NULL && count < max;) {
    if (!fakeAllDigits(entry->d_name)) continue;
    unsigned pid = (unsigned)strtoul(entry->d_name, NULL, 10);
    if (fakeProcessMatches(who, pid)) pids[count++] = pid;
  }
  closedir(proc);
  return count;
}

#endif
