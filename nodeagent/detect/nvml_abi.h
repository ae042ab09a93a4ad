/* The part of NVML's C interface the nvml backend calls, declared here because
 * NVML is loaded with dlopen and its header is not installed on build hosts.
 * Layouts follow NVML's public nvml.h. Plain C so the fake NVML used by the
 * tests (tests/fakes/) compiles against the very same declarations. */
#ifndef GANTRY_NODEAGENT_DETECT_NVML_ABI_H
#define GANTRY_NODEAGENT_DETECT_NVML_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

enum {
  kNvmlSuccess = 0,
  kNvmlErrorNotSupported = 3,
  kNvmlErrorNotFound = 6,
  kNvmlErrorInsufficientSize = 7,
  kNvmlErrorLibraryNotFound = 12,
  kNvmlNvlinkMaxLinks = 18,
  kNvmlDeviceNameBufferSize = 96,
  kNvmlDeviceUuidBufferSize = 80,
  kNvmlMigEnabled = 1,
  kNvmlNvlinkDeviceTypeGpu = 0,
  kNvmlNvlinkDeviceTypeSwitch = 2
};

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  unsigned int gpuInstanceSliceCount;
  unsigned int computeInstanceSliceCount;
  unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

/* Per-process usage, read by the step launcher for GPU accounting. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory; /* bytes */
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t; /* the _v2 and _v3 layout */

typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil; /* percent */
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int, nvmlDevice_t*);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t, char*, unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t, char*, unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetMinorNumber_fn)(nvmlDevice_t, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t, nvmlPciInfo_t*);
typedef nvmlReturn_t (*nvmlDeviceGetCpuAffinity_fn)(nvmlDevice_t, unsigned int, unsigned long*);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkState_fn)(nvmlDevice_t, unsigned int, int*);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkRemotePciInfo_v2_fn)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*);
/* The last argument is nvmlIntNvLinkDeviceType_t, an int-sized enum. */
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkRemoteDeviceType_fn)(nvmlDevice_t, unsigned int, int*);
typedef nvmlReturn_t (*nvmlDeviceGetMigMode_fn)(nvmlDevice_t, unsigned int*, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetMaxMigDeviceCount_fn)(nvmlDevice_t, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetMigDeviceHandleByIndex_fn)(nvmlDevice_t, unsigned int, nvmlDevice_t*);
typedef nvmlReturn_t (*nvmlDeviceGetGpuInstanceId_fn)(nvmlDevice_t, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetComputeInstanceId_fn)(nvmlDevice_t, unsigned int*);
typedef nvmlReturn_t (*nvmlDeviceGetAttributes_v2_fn)(nvmlDevice_t, nvmlDeviceAttributes_t*);
typedef nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3_fn)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*);
typedef nvmlReturn_t (*nvmlDeviceGetProcessUtilization_fn)(nvmlDevice_t, nvmlProcessUtilizationSample_t*,
                                                           unsigned int*, unsigned long long);

#ifdef __cplusplus
}
#endif

#endif
