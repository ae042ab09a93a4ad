/* A stand-in for libnvidia-ml.so built from fixture data, so the nvml
 * backend's dlopen path runs for real in tests. It reads the file named by
 * GANTRY_FAKE_NVML_FILE when nvmlInit_v2 is called (format: README.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodeagent/detect/nvml_abi.h"
#include "tests/fakes/fake_processes.h"

#define MAX_GPUS 64
#define MAX_MIGS 7
#define MAX_LINKS 18
#define MAX_PROCS 64

/* A per-process usage record: `proc|<bus id>|<who>|<used MiB>|<sm util %>`. */
struct FakeProc {
  char busId[32];
  char who[64];
  unsigned long long usedMib;
  unsigned smUtil;
};

struct nvmlDevice_st {
  char name[96];
  char uuid[80];
  char busId[32];
  unsigned minor;
  unsigned long cpus[64];
  int migEnabled;
  char linkPeers[MAX_LINKS][32]; /* "switch" marks a link to an NVSwitch */
  unsigned linkCount;
  struct nvmlDevice_st* migs[MAX_MIGS];
  unsigned migCount;
  /* for MIG instances */
  unsigned gi, ci, slices;
  unsigned long long memoryMb;
};

static struct FakeProc procs[MAX_PROCS];
static unsigned procCount;
/* `procerror|<bus id>|<NVML error>`: the per-process calls on that GPU fail. */
static struct {
  char busId[32];
  int error;
} procErrors[MAX_GPUS];
static unsigned procErrorCount;

static struct nvmlDevice_st gpus[MAX_GPUS];
static struct nvmlDevice_st migs[MAX_GPUS * MAX_MIGS];
static unsigned gpuCount, migTotal;

static void setCpus(unsigned long* mask, char* list) {
  char* save = NULL;
  for (char* piece = strtok_r(list, ",", &save); piece; piece = strtok_r(NULL, ",", &save)) {
    unsigned first = 0, last = 0;
    if (sscanf(piece, "%u-%u", &first, &last) != 2) last = first = (unsigned)atoi(piece);
    for (unsigned c = first; c <= last && c < 64 * 64; ++c) mask[c / 64] |= 1UL << (c % 64);
  }
}

static struct nvmlDevice_st* gpuByBus(const char* busId) {
  for (unsigned i = 0; i < gpuCount; ++i)
    if (strcasecmp(gpus[i].busId, busId) == 0) return &gpus[i];
  return NULL;
}

static void parseLine(char* line) {
  char* fields[8] = {0};
  int n = 0;
  char* save = NULL;
  line[strcspn(line, "\n")] = 0;
  if (line[0] == '#' || line[0] == 0) return;
  for (char* f = strtok_r(line, "|", &save); f && n < 8; f = strtok_r(NULL, "|", &save)) fields[n++] = f;
  if (strcmp(fields[0], "gpu") == 0 && n == 7 && gpuCount < MAX_GPUS) {
    struct nvmlDevice_st* d = &gpus[gpuCount++];
    snprintf(d->name, sizeof d->name, "%s", fields[1]);
    snprintf(d->uuid, sizeof d->uuid, "%s", fields[2]);
    snprintf(d->busId, sizeof d->busId, "%s", fields[3]);
    d->minor = (unsigned)atoi(fields[4]);
    setCpus(d->cpus, fields[5]);
    d->migEnabled = atoi(fields[6]);
  } else if (strcmp(fields[0], "nvlink") == 0 && n == 3) {
    struct nvmlDevice_st* d = gpuByBus(fields[1]);
    if (d && d->linkCount < MAX_LINKS) snprintf(d->linkPeers[d->linkCount++], 32, "%s", fields[2]);
  } else if (strcmp(fields[0], "nvswitch") == 0 && n == 2) {
    struct nvmlDevice_st* d = gpuByBus(fields[1]);
    if (d && d->linkCount < MAX_LINKS) snprintf(d->linkPeers[d->linkCount++], 32, "switch");
  } else if (strcmp(fields[0], "mig") == 0 && n == 7) {
    struct nvmlDevice_st* parent = gpuByBus(fields[1]);
    if (!parent || parent->migCount >= MAX_MIGS) return;
    struct nvmlDevice_st* m = &migs[migTotal++];
    *m = *parent;
    m->migCount = 0;
    m->gi = (unsigned)atoi(fields[2]);
    m->ci = (unsigned)atoi(fields[3]);
    snprintf(m->uuid, sizeof m->uuid, "%s", fields[4]);
    m->slices = (unsigned)atoi(fields[5]);
    m->memoryMb = strtoull(fields[6], NULL, 10);
    parent->migs[parent->migCount++] = m;
  } else if (strcmp(fields[0], "proc") == 0 && n == 5 && procCount < MAX_PROCS) {
    struct FakeProc* p = &procs[procCount++];
    snprintf(p->busId, sizeof p->busId, "%s", fields[1]);
    snprintf(p->who, sizeof p->who, "%s", fields[2]);
    p->usedMib = strtoull(fields[3], NULL, 10);
    p->smUtil = (unsigned)atoi(fields[4]);
  } else if (strcmp(fields[0], "procerror") == 0 && n == 3 && procErrorCount < MAX_GPUS) {
    snprintf(procErrors[procErrorCount].busId, 32, "%s", fields[1]);
    procErrors[procErrorCount++].error = atoi(fields[2]);
  }
}

static int sessions; /* started and not yet shut down */

nvmlReturn_t nvmlInit_v2(void) {
  const char* path = getenv("GANTRY_FAKE_NVML_FILE");
  FILE* file = path ? fopen(path, "r") : NULL;
  if (!file) return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
  memset(gpus, 0, sizeof gpus);
  memset(migs, 0, sizeof migs);
  gpuCount = migTotal = procCount = procErrorCount = 0;
  char line[512];
  while (fgets(line, sizeof line, file)) parseLine(line);
  fclose(file);
  ++sessions;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlShutdown(void) {
  if (sessions > 0) --sessions;
  return kNvmlSuccess;
}

/* Test hook: how many nvmlInit_v2 calls have not been shut down yet. */
int gantry_fake_nvml_sessions(void) { return sessions; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = gpuCount;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index >= gpuCount) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *device = &gpus[index];
  return kNvmlSuccess;
}

static nvmlReturn_t copyString(const char* from, char* to, unsigned int length) {
  if (strlen(from) + 1 > length) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  strcpy(to, from);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int length) { return copyString(d->name, name, length); }
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) { return copyString(d->uuid, uuid, length); }

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int* minor) {
  *minor = d->minor;
  return kNvmlSuccess;
}

static void fillPci(const char* busId, nvmlPciInfo_t* pci) {
  memset(pci, 0, sizeof *pci);
  snprintf(pci->busId, sizeof pci->busId, "%s", busId);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", busId + 4);
  sscanf(busId, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  fillPci(d->busId, pci);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int size, unsigned long* set) {
  for (unsigned i = 0; i < size; ++i) set[i] = i < 64 ? d->cpus[i] : 0;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int* active) {
  if (link >= MAX_LINKS) return 2;
  *active = link < d->linkCount;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t* pci) {
  if (link >= d->linkCount) return kNvmlErrorNotSupported;
  fillPci(strcmp(d->linkPeers[link], "switch") == 0 ? "00000000:05:00.0" : d->linkPeers[link], pci);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link, int* type) {
  if (link >= d->linkCount) return kNvmlErrorNotSupported;
  *type = strcmp(d->linkPeers[link], "switch") == 0 ? kNvmlNvlinkDeviceTypeSwitch : kNvmlNvlinkDeviceTypeGpu;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  *current = *pending = (unsigned)d->migEnabled;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int* count) {
  *count = d->migEnabled ? MAX_MIGS : 0;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t* mig) {
  if (index >= d->migCount) return kNvmlErrorNotFound;
  *mig = d->migs[index];
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int* id) {
  *id = d->gi;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int* id) {
  *id = d->ci;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t* attributes) {
  memset(attributes, 0, sizeof *attributes);
  attributes->gpuInstanceSliceCount = d->slices;
  attributes->computeInstanceSliceCount = d->slices;
  attributes->memorySizeMB = d->memoryMb;
  return kNvmlSuccess;
}

static int procErrorOf(nvmlDevice_t d) {
  for (unsigned i = 0; i < procErrorCount; ++i)
    if (strcasecmp(procErrors[i].busId, d->busId) == 0) return procErrors[i].error;
  return 0;
}

/* Each proc record of the GPU gives one entry per process it answers for. */
typedef void (*ProcSink)(const struct FakeProc* record, unsigned pid, unsigned index, void* out);

static unsigned forEachProcess(nvmlDevice_t d, ProcSink sink, void* out, unsigned max) {
  unsigned count = 0;
  for (unsigned r = 0; r < procCount; ++r) {
    if (strcasecmp(procs[r].busId, d->busId) != 0) continue;
    unsigned pids[MAX_PROCS];
    unsigned found = fakeProcessesMatching(procs[r].who, pids, MAX_PROCS);
    for (unsigned i = 0; i < found && count < max; ++i) sink(&procs[r], pids[i], count++, out);
  }
  return count;
}

static void fillInfo(const struct FakeProc* record, unsigned pid, unsigned index, void* out) {
  nvmlProcessInfo_t* info = (nvmlProcessInfo_t*)out + index;
  memset(info, 0, sizeof *info);
  info->pid = pid;
  info->usedGpuMemory = record->usedMib * 1024ULL * 1024ULL;
}

static void fillSample(const struct FakeProc* record, unsigned pid, unsigned index, void* out) {
  nvmlProcessUtilizationSample_t* sample = (nvmlProcessUtilizationSample_t*)out + index;
  memset(sample, 0, sizeof *sample);
  sample->pid = pid;
  sample->timeStamp = 1;
  sample->smUtil = record->smUtil;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
  if (procErrorOf(d)) return procErrorOf(d);
  *count = forEachProcess(d, fillInfo, infos, *count);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t* samples,
                                             unsigned int* count, unsigned long long lastSeen) {
  (void)lastSeen;
  if (procErrorOf(d)) return procErrorOf(d);
  *count = forEachProcess(d, fillSample, samples, *count);
  return *count ? kNvmlSuccess : kNvmlErrorNotFound;
}
