/* A stand-in for librocm_smi64.so built from fixture data, so the rsmi
 * backend's dlopen path runs for real in tests. It reads the file named by
 * GANTRY_FAKE_RSMI_FILE when rsmi_init is called (format: README.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodeagent/detect/rsmi_abi.h"
#include "tests/fakes/fake_processes.h"

#define MAX_GPUS 64

struct FakeGpu {
  char name[128];
  uint16_t deviceId;
  uint64_t uniqueId;
  uint64_t bdf;
  uint32_t renderMinor;
};

/* `proc|<gpu index>|<who>|<vram MiB>|<CUs occupied>|<CUs>|<ok, invalid or fail>`:
 * one GPU the library reads for the processes `who` names. */
#define MAX_PROCS 64
struct FakeProc {
  uint32_t gpu;
  char who[64];
  uint64_t vramMib;
  uint64_t occupied, total;
  char outcome[16];
};
static struct FakeProc procs[MAX_PROCS];
static unsigned procCount;

static struct FakeGpu gpus[MAX_GPUS];
static unsigned char xgmi[MAX_GPUS][MAX_GPUS];
static uint32_t gpuCount;

static void parseLine(char* line) {
  char* fields[8] = {0};
  int n = 0;
  char* save = NULL;
  line[strcspn(line, "\n")] = 0;
  if (line[0] == '#' || line[0] == 0) return;
  for (char* f = strtok_r(line, "|", &save); f && n < 8; f = strtok_r(NULL, "|", &save)) fields[n++] = f;
  if (strcmp(fields[0], "gpu") == 0 && n == 6 && gpuCount < MAX_GPUS) {
    struct FakeGpu* g = &gpus[gpuCount++];
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    snprintf(g->name, sizeof g->name, "%s", fields[1]);
    g->deviceId = (uint16_t)strtoul(fields[2], NULL, 16);
    g->uniqueId = strtoull(fields[3], NULL, 16);
    sscanf(fields[4], "%x:%x:%x.%x", &domain, &bus, &device, &function);
    g->bdf = ((uint64_t)domain << 32) | (bus << 8) | ((device & 0x1f) << 3) | (function & 0x7);
    g->renderMinor = (uint32_t)atoi(fields[5]);
  } else if (strcmp(fields[0], "xgmi") == 0 && n == 3) {
    int i = atoi(fields[1]), j = atoi(fields[2]);
    if (i >= 0 && j >= 0 && i < MAX_GPUS && j < MAX_GPUS) xgmi[i][j] = 1;
  } else if (strcmp(fields[0], "proc") == 0 && n == 7 && procCount < MAX_PROCS) {
    struct FakeProc* p = &procs[procCount++];
    p->gpu = (uint32_t)atoi(fields[1]);
    snprintf(p->who, sizeof p->who, "%s", fields[2]);
    p->vramMib = strtoull(fields[3], NULL, 10);
    p->occupied = strtoull(fields[4], NULL, 10);
    p->total = strtoull(fields[5], NULL, 10);
    snprintf(p->outcome, sizeof p->outcome, "%s", fields[6]);
  }
}

static int sessions; /* started and not yet shut down */

rsmi_status_t rsmi_init(uint64_t flags) {
  (void)flags;
  const char* path = getenv("GANTRY_FAKE_RSMI_FILE");
  FILE* file = path ? fopen(path, "r") : NULL;
  if (!file) return 8; /* RSMI_STATUS_INIT_ERROR */
  memset(gpus, 0, sizeof gpus);
  memset(xgmi, 0, sizeof xgmi);
  gpuCount = 0;
  procCount = 0;
  char line[512];
  while (fgets(line, sizeof line, file)) parseLine(line);
  fclose(file);
  ++sessions;
  return kRsmiSuccess;
}

rsmi_status_t rsmi_shut_down(void) {
  if (sessions > 0) --sessions;
  return kRsmiSuccess;
}

/* Test hook: how many rsmi_init calls have not been shut down yet. */
int gantry_fake_rsmi_sessions(void) { return sessions; }

rsmi_status_t rsmi_num_monitor_devices(uint32_t* count) {
  *count = gpuCount;
  return kRsmiSuccess;
}

#define CHECK_INDEX(i) \
  if ((i) >= gpuCount) return 2 /* RSMI_STATUS_INVALID_ARGS */

rsmi_status_t rsmi_dev_pci_id_get(uint32_t i, uint64_t* bdf) {
  CHECK_INDEX(i);
  *bdf = gpus[i].bdf;
  return kRsmiSuccess;
}

rsmi_status_t rsmi_dev_name_get(uint32_t i, char* name, size_t length) {
  CHECK_INDEX(i);
  snprintf(name, length, "%s", gpus[i].name);
  return kRsmiSuccess;
}

rsmi_status_t rsmi_dev_id_get(uint32_t i, uint16_t* id) {
  CHECK_INDEX(i);
  *id = gpus[i].deviceId;
  return kRsmiSuccess;
}

rsmi_status_t rsmi_dev_unique_id_get(uint32_t i, uint64_t* id) {
  CHECK_INDEX(i);
  *id = gpus[i].uniqueId;
  return kRsmiSuccess;
}

rsmi_status_t rsmi_dev_drm_render_minor_get(uint32_t i, uint32_t* minor) {
  CHECK_INDEX(i);
  *minor = gpus[i].renderMinor;
  return kRsmiSuccess;
}

rsmi_status_t rsmi_topo_get_link_type(uint32_t i, uint32_t j, uint64_t* hops, int* type) {
  CHECK_INDEX(i);
  CHECK_INDEX(j);
  *hops = 1;
  *type = xgmi[i][j] ? kRsmiIoLinkTypeXgmi : kRsmiIoLinkTypePcie;
  return kRsmiSuccess;
}

/* As the library does: the process's occupied CUs over the GPUs read,
 * divided by their CUs; the invalid marker when a GPU lacks the counter, a
 * failed read when one says so, "not found" when no record names it. */
rsmi_status_t rsmi_compute_process_info_by_pid_get(uint32_t pid, rsmi_process_info_t* info) {
  uint64_t vram = 0, occupied = 0, total = 0;
  int found = 0, invalid = 0;
  for (unsigned r = 0; r < procCount; ++r) {
    if (!fakeProcessMatches(procs[r].who, pid)) continue;
    if (strcmp(procs[r].outcome, "fail") == 0) return 3; /* RSMI_STATUS_FILE_ERROR */
    found = 1;
    invalid |= strcmp(procs[r].outcome, "invalid") == 0;
    vram += procs[r].vramMib * 1024 * 1024;
    occupied += procs[r].occupied;
    total += procs[r].total;
  }
  if (!found) return kRsmiStatusNotFound;
  memset(info, 0, sizeof *info);
  info->process_id = pid;
  info->vram_usage = vram;
  info->cu_occupancy = invalid ? GANTRY_RSMI_CU_OCCUPANCY_INVALID : (uint32_t)(total ? occupied * 100 / total : 0);
  return kRsmiSuccess;
}
